/**
 * @module src/cli/format-audit
 * How the ledger looks on a terminal: the `corral audit` table of sources
 * and their tools, one source's report, and a source's state in one line.
 * Pure functions from the ledger's rows to lines; the commands pick the stream.
 *
 * The count columns always add up to CALLS: outcomes without a column of
 * their own (quarantined, unknown_tool, …) are summed under OTHER, and a
 * source's report names them one by one. ERROR % is every call that was not
 * ok; LAST ERROR the latest of them with its message (a strike among them).
 */
import { OUTCOME_KINDS, type OutcomeKind } from "../index.js";
import type { LedgerEvent, SourceReport, SourceRow, SourceState, StrikeEntry, ToolErrorEntry, ToolRow, Totals } from "../ledger/index.js";
import { shorten } from "./format.js";

/** Line width when stdout is no terminal (a pipe, a file): room for most messages, still one line each. */
export const PIPE_LINE_CHARS = 200;
/** Narrower than this, the last column says nothing; the line overflows instead. */
const MIN_LAST_COLUMN_CHARS = 24;
const COLUMN_GAP = "  ";

const COUNTED: readonly { header: string; kind: OutcomeKind }[] = [
  { header: "OK", kind: "ok" },
  { header: "TOOL ERR", kind: "tool_error" },
  { header: "INVALID", kind: "invalid_input" },
  { header: "BLOCKED", kind: "blocked" },
  { header: "CANCELLED", kind: "cancelled" },
  { header: "BUSY", kind: "busy" },
  { header: "TIMEOUT", kind: "timeout" },
  { header: "MEMORY", kind: "memory" },
  { header: "CRASH", kind: "crash" },
];
const COUNT_HEADERS = ["CALLS", ...COUNTED.map((c) => c.header), "OTHER", "ERROR %", "STRIKE %"];
/** A version as a column shows it: enough of the hash to tell versions apart. */
const VERSION_CHARS = 12;

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function untilText(until: number | null): string {
  return until === null ? "until released" : `until ${isoTime(until)}`;
}

/** `agent:x active` or `agent:x quarantined since … until …, by …: reason`. */
export function stateLine(state: SourceState): string {
  if (state.state === "active") return state.since === null ? `${state.source} active` : `${state.source} active since ${isoTime(state.since)}`;
  return `${state.source} quarantined ${quarantineTerms(state)}`;
}

function quarantineTerms(state: Extract<SourceState, { state: "quarantined" }>): string {
  return `since ${isoTime(state.since)} ${untilText(state.until)}, by ${state.actor}: ${state.reason}`;
}

function countCells(totals: Totals, rates: { errorRate: number; strikeRate: number }): string[] {
  const counted = COUNTED.map((c) => totals.outcomes[c.kind]);
  const other = totals.calls - counted.reduce((sum, n) => sum + n, 0);
  return [String(totals.calls), ...counted.map(String), String(other), percent(rates.errorRate), percent(rates.strikeRate)];
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

function lastErrorCell(error: { outcome: string; message: string } | undefined): string {
  return error === undefined ? "-" : `${error.outcome}: ${error.message}`;
}

/** The latest error of any of the tools' (each tool's are newest first). */
function lastErrorOf(tools: readonly ToolRow[]): ToolErrorEntry | undefined {
  let latest: ToolErrorEntry | undefined;
  for (const tool of tools) {
    const error = tool.lastErrors[0];
    if (error !== undefined && (latest === undefined || error.at > latest.at)) latest = error;
  }
  return latest;
}

export type Align = "left" | "right";

/**
 * Rows padded into columns, numbers right-aligned; the last column is cut
 * so that each line fits in `lineChars`. `notes[i]` are lines printed under
 * row i as they are (cut to fit too), starting under column `notesAt`.
 */
export function alignedTable(rows: readonly string[][], align: readonly Align[], lineChars: number, notes = new Map<number, string[]>(), notesAt = 0): string[] {
  const widths: number[] = [];
  for (const row of rows) row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const used = widths.reduce((sum, width) => sum + width + COLUMN_GAP.length, 0);
  const lastChars = Math.max(MIN_LAST_COLUMN_CHARS, lineChars - used);
  const indent = " ".repeat(widths.slice(0, notesAt).reduce((sum, width) => sum + width + COLUMN_GAP.length, 0));
  const lines: string[] = [];
  rows.forEach((row, r) => {
    const cells = row.map((cell, i) => {
      if (i === row.length - 1) return shorten(cell, lastChars);
      const width = widths[i] ?? 0;
      return align[i] === "right" ? cell.padStart(width) : cell.padEnd(width);
    });
    lines.push(cells.join(COLUMN_GAP).trimEnd());
    for (const note of notes.get(r) ?? []) lines.push(indent + shorten(note, Math.max(MIN_LAST_COLUMN_CHARS, lineChars - indent.length)));
  });
  return lines;
}

const SUMMARY_ALIGN: readonly Align[] = ["left", "left", ...COUNT_HEADERS.map((): Align => "right"), "left"];

/** `corral audit`: a heading, then each source (its quarantine beneath it) with its tools indented below. */
export function auditTableLines(rows: readonly SourceRow[], file: string, lineChars: number): string[] {
  const calls = rows.reduce((sum, row) => sum + row.totals.calls, 0);
  const strikes = rows.reduce((sum, row) => sum + row.totals.strikes, 0);
  const quarantined = rows.filter((row) => row.state.state === "quarantined").length;
  const heading = `ledger ${file}: ${plural(rows.length, "source")}, ${plural(calls, "call")}, ${plural(strikes, "strike")}, ${quarantined} quarantined`;

  const table: string[][] = [["SOURCE / TOOL", "STATE", ...COUNT_HEADERS, "LAST ERROR"]];
  const notes = new Map<number, string[]>();
  for (const row of rows) {
    table.push([row.source, row.state.state, ...countCells(row.totals, row), lastErrorCell(lastErrorOf(row.tools))]);
    if (row.state.state === "quarantined") notes.set(table.length - 1, [quarantineTerms(row.state)]);
    for (const tool of row.tools) table.push([`  ${tool.tool}`, "", ...toolCells(tool)]);
  }
  return [heading, "", ...alignedTable(table, SUMMARY_ALIGN, lineChars, notes, 1)];
}

function toolCells(tool: ToolRow): string[] {
  return [...countCells(tool.totals, tool), lastErrorCell(tool.lastErrors[0])];
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** `corral audit <source>`: its state, totals, tools, recent strikes and recent changes of state. */
export function sourceReportLines(report: SourceReport, lineChars: number): string[] {
  const { totals } = report;
  const lines = [stateLine(report.state)];
  const outcomes = OUTCOME_KINDS.filter((kind) => totals.outcomes[kind] > 0 || COUNTED.some((c) => c.kind === kind)).map(
    (kind) => `${kind} ${totals.outcomes[kind]}`,
  );
  lines.push(`calls ${totals.calls}: ${outcomes.join(", ")}`);
  const lastCall = totals.lastCallAt === null ? "never called" : `last call ${isoTime(totals.lastCallAt)}`;
  lines.push(`errors ${totals.calls - totals.outcomes.ok} (${percent(report.errorRate)} of calls), strikes ${totals.strikes} (${percent(report.strikeRate)} of calls), ${plural(report.versions, "version")}, ${lastCall}`);

  lines.push("", "tools");
  if (report.tools.length === 0) lines.push("  none called");
  else {
    const tools = [["TOOL", ...COUNT_HEADERS, "LAST ERROR"], ...report.tools.map((tool) => [tool.tool, ...toolCells(tool)])];
    const align: Align[] = ["left", ...COUNT_HEADERS.map((): Align => "right"), "left"];
    lines.push(...indent(alignedTable(tools, align, lineChars - 2)));
  }

  const versions = report.tools.flatMap((tool) => tool.versions.map((v) => [tool.tool, v.version.slice(0, VERSION_CHARS), v.firstSeenAt === null ? "-" : isoTime(v.firstSeenAt), String(v.calls), String(v.errors), percent(v.calls === 0 ? 0 : v.errors / v.calls), String(v.strikes)]));
  lines.push("", "calls per version, newest first");
  if (versions.length === 0) lines.push("  none counted");
  else lines.push(...indent(alignedTable([["TOOL", "VERSION", "FIRST SEEN", "CALLS", "ERRORS", "ERROR %", "STRIKES"], ...versions], ["left", "left", "left", "right", "right", "right", "right"], lineChars - 2)));

  const errors = report.tools.flatMap((tool) => tool.lastErrors.map((error) => [isoTime(error.at), tool.tool, error.outcome, error.version.slice(0, VERSION_CHARS), error.message]));
  lines.push("", "latest errors per tool, newest first");
  if (errors.length === 0) lines.push("  none");
  else lines.push(...indent(alignedTable([["TIME", "TOOL", "OUTCOME", "VERSION", "MESSAGE"], ...errors], [], lineChars - 2)));

  lines.push("", `recent strikes, newest first (${report.strikes.length})`);
  if (report.strikes.length === 0) lines.push("  none");
  else lines.push(...indent(alignedTable([["TIME", "TOOL", "OUTCOME", "MESSAGE"], ...report.strikes.map(strikeCells)], [], lineChars - 2)));

  lines.push("", `recent events, newest first (${report.events.length})`);
  if (report.events.length === 0) lines.push("  none");
  else lines.push(...indent(alignedTable([["TIME", "KIND", "ACTOR", "UNTIL", "REASON"], ...report.events.map(eventCells)], [], lineChars - 2)));
  return lines;
}

function strikeCells(strike: StrikeEntry): string[] {
  return [isoTime(strike.at), strike.tool, strike.outcome, strike.message];
}

/** An expiry's `until` is the end that passed; a release has none. */
function eventCells(event: LedgerEvent): string[] {
  const quarantine = event.kind === "quarantine" || event.kind === "manual_quarantine";
  const until = event.until !== null ? isoTime(event.until) : quarantine ? "released" : "-";
  return [isoTime(event.at), event.kind, event.actor, until, event.reason];
}

export function indent(lines: readonly string[]): string[] {
  return lines.map((line) => `  ${line}`);
}
