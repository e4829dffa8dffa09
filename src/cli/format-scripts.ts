/**
 * @module src/cli/format-scripts
 * The Code Mode part of `corral audit <source>`: for a script source
 * (`code:<caller id>`), the tools its scripts called (tool, its source,
 * calls, strikes, every outcome kind that happened, strikes first); for any
 * other source, one short line naming the script sources that called its
 * tools. Pure functions from the ledger's reports to lines.
 */
import { STRIKE_KINDS, type OutcomeKind, type ScriptCallersReport, type ScriptToolsReport } from "../index.js";
import type { ScriptToolRow } from "../ledger/index.js";
import { alignedTable, indent, plural, type Align } from "./format-audit.js";

const TOOL_ALIGN: readonly Align[] = ["left", "left", "right", "right", "left"];

/** `tools its scripts called (n)`, then a table of them, most strikes first. */
export function scriptToolsLines(report: ScriptToolsReport, lineChars: number): string[] {
  const lines = ["", `tools its scripts called (${report.total})`];
  if (report.total === 0) return [...lines, "  none"];
  const table = [["TOOL", "SOURCE", "CALLS", "STRIKES", "OUTCOMES"], ...report.rows.map(toolCells)];
  lines.push(...indent(alignedTable(table, TOOL_ALIGN, lineChars - 2)));
  const hidden = report.total - report.rows.length;
  if (hidden > 0) lines.push(`  … and ${plural(hidden, "more tool")} (corral audit ${report.script} --json lists the first ${report.rows.length} too)`);
  return lines;
}

/** Strike kinds first, so a tool's strikes by kind read at the start of its outcomes. */
function toolCells(row: ScriptToolRow): string[] {
  const kinds = Object.entries(row.outcomes).sort(([a], [b]) => Number(isStrikeKind(b)) - Number(isStrikeKind(a)));
  return [row.tool, row.source, String(row.calls), String(row.strikes), kinds.map(([kind, n]) => `${kind} ${n}`).join(", ")];
}

function isStrikeKind(kind: string): boolean {
  return STRIKE_KINDS.has(kind as OutcomeKind);
}

/**
 * One line: `called by 3 script sources: code:a (3 calls), code:b (2 calls, 1 strike) and 1 more`.
 * Whole names only: as many as fit in `lineChars` (at least one), the rest counted.
 */
export function scriptCallersLines(report: ScriptCallersReport, lineChars: number): string[] {
  if (report.total === 0) return ["", "called by scripts: none"];
  let line = `called by ${plural(report.total, "script source")}:`;
  let shown = 0;
  for (const row of report.rows) {
    const named = `${shown === 0 ? " " : ", "}${row.script} (${plural(row.calls, "call")}${row.strikes > 0 ? `, ${plural(row.strikes, "strike")}` : ""})`;
    const rest = report.total - shown - 1;
    const tail = rest > 0 ? ` and ${rest} more` : "";
    if (shown > 0 && line.length + named.length + tail.length > lineChars) break;
    line += named;
    shown++;
  }
  const hidden = report.total - shown;
  return ["", hidden > 0 ? `${line} and ${hidden} more` : line];
}
