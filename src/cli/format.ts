/**
 * @module src/cli/format
 * How results, manifests and diagnostics look on a terminal. Pure functions
 * from data to lines; the commands decide which stream gets them.
 */
import type { Diagnostic, LoadResult, ToolInfo, ToolResult } from "../index.js";

/** The failure shape a ToolResult and a LoadResult share. */
export type FailureInfo = {
  kind: string;
  message: string;
  issues?: { path: (string | number)[]; message: string }[];
  diagnostics?: Diagnostic[];
};

/** More than this many diagnostics is noise; the rest are counted, not shown. */
const MAX_DIAGNOSTICS_SHOWN = 20;

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? "";
}

/** One line, at most `maxChars` long, for reports where a whole output would not fit. */
export function shorten(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}

export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/**
 * `error <kind>: <first line of the message>`, then the input's zod issues
 * and the compiler's diagnostics, one per line, each with its source line.
 * A compile error's message is its diagnostics joined, so the first
 * diagnostic is not repeated under a header that already shows it.
 */
export function failureLines(error: FailureInfo): string[] {
  const [head = "", ...rest] = error.message.split("\n");
  const lines = [`error ${error.kind}: ${head}`];
  const diagnostics = error.diagnostics ?? [];
  if (diagnostics.length === 0) lines.push(...rest.filter((line) => line.trim() !== "").map((line) => `  ${line}`));
  diagnostics.slice(0, MAX_DIAGNOSTICS_SHOWN).forEach((diagnostic, index) => {
    const where = diagnosticLine(diagnostic);
    if (index > 0 || where !== head) lines.push(`  ${where}`);
    lines.push(...codeFrame(diagnostic));
  });
  if (diagnostics.length > MAX_DIAGNOSTICS_SHOWN) lines.push(`  … and ${diagnostics.length - MAX_DIAGNOSTICS_SHOWN} more`);
  for (const issue of error.issues ?? []) lines.push(`  input${issuePath(issue.path)}: ${issue.message}`);
  return lines;
}

/** `file:line:col: message`, the form editors and terminals turn into links. */
export function diagnosticLine(diagnostic: Diagnostic): string {
  if (diagnostic.file === undefined || diagnostic.line === undefined) return diagnostic.message;
  return `${diagnostic.file}:${diagnostic.line}:${diagnostic.column ?? 1}: ${diagnostic.message}`;
}

function codeFrame(diagnostic: Diagnostic): string[] {
  if (diagnostic.lineText === undefined || diagnostic.line === undefined) return [];
  const gutter = String(diagnostic.line);
  const frame = [`    ${gutter} | ${diagnostic.lineText}`];
  if (diagnostic.column !== undefined) {
    // Columns count from 1. Tabs are kept so the caret lines up under them.
    const lead = diagnostic.lineText.slice(0, Math.max(0, diagnostic.column - 1)).replace(/[^\t]/g, " ");
    frame.push(`    ${" ".repeat(gutter.length)} | ${lead}^`);
  }
  return frame;
}

function issuePath(path: (string | number)[]): string {
  return path.map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`)).join("");
}

/** What `run` prints on failure; on success it prints only the output. */
export function toolFailureLines(result: ToolResult): string[] {
  return result.ok ? [] : failureLines(result.error);
}

/** A source that did not load: its id, then why, indented beneath. */
export function loadFailureLines(result: Extract<LoadResult, { ok: false }>): string[] {
  return [`FAIL ${result.source}`, ...failureLines(result.error).map((line) => `  ${line}`)];
}

/** A tool's manifest as `check` shows it: what a reviewer needs before trusting the tool. */
export function manifestLines(tool: ToolInfo): string[] {
  const lines = [`${tool.name}  (${tool.source}, version ${tool.version.slice(0, 12)})`];
  for (const line of tool.description.split("\n")) lines.push(`  ${line}`);
  lines.push(`  effects:  ${effectsText(tool.effects)}`);
  lines.push(`  exposure: ${tool.exposure}`);
  lines.push(`  limits:   ${tool.limits.timeoutMs} ms, ${tool.limits.memoryMb} MB`);
  lines.push("  input schema:");
  lines.push(...indentJson(withoutDialect(tool.inputSchema), "    "));
  if (tool.outputSchema !== undefined) {
    lines.push("  output schema:");
    lines.push(...indentJson(withoutDialect(tool.outputSchema), "    "));
  }
  return lines;
}

function effectsText(effects: string[] | null): string {
  if (effects === null) return "undeclared (treated as the most dangerous kind)";
  return effects.length === 0 ? "none (pure)" : effects.join(", ");
}

/** `$schema` names the JSON Schema dialect: true of every tool, so it is dropped from the text view. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function indentJson(value: unknown, indent: string): string[] {
  return JSON.stringify(value, null, 2).split("\n").map((line) => indent + line);
}

/** Rows padded into columns; the last column is left ragged. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd());
}
