/**
 * @module src/cli/commands/audit
 * `corral audit [source]`: what the ledger knows, read straight from its file
 * (no host, no workers), so it shows what a running host has recorded up to
 * its last call. Without a source: every source and its tools, most trouble
 * first, with every outcome kind and the error rate. With one: that source's
 * totals, its tools' calls per version and latest errors, recent strikes and
 * changes of state, its capability uses (counters, and the latest with their
 * targets: what host.auditSource answers too), and
 * what Code Mode made of it: for a script source (`code:<caller id>`) the
 * tools its scripts called, for any other the script sources that called it.
 */
import type { Ledger } from "../../ledger/index.js";
import { checkSourceId } from "../../registry/source.js";
import { CliFailure, EXIT, ledgerLabel, UsageError, withCliLedger, writeLines, type CliContext, type ExitCode } from "../context.js";
import { toJson } from "../format.js";
import { auditTableLines, PIPE_LINE_CHARS, sourceReportLines } from "../format-audit.js";
import { capabilityLines, readCapabilityUses } from "../format-capabilities.js";
import { scriptCallersLines, scriptToolsLines } from "../format-scripts.js";

export type AuditOptions = {
  json: boolean;
  /** How many changes of state a source's report lists. @default the ledger's (20) */
  events?: number;
  /** How many strikes with their messages a source's report lists. @default the ledger's (10) */
  strikes?: number;
};

export async function auditCommand(source: string | undefined, options: AuditOptions, context: CliContext): Promise<ExitCode> {
  if (source === undefined && (options.events !== undefined || options.strikes !== undefined)) {
    throw new UsageError("--events and --strikes apply to one source's report: corral audit <source>");
  }
  // Checked before the file is opened: a malformed id is misuse (2) whatever the ledger holds.
  if (source !== undefined) checkSourceId(source);
  const { stdout } = context.io;
  const lineChars = stdout.isTTY === true && stdout.columns !== undefined ? stdout.columns : PIPE_LINE_CHARS;

  return withCliLedger(context, async (ledger) => {
    if (source === undefined) {
      const rows = await ledger.summary();
      if (options.json) stdout.write(toJson(rows));
      else if (rows.length === 0) stdout.write(`no calls recorded in ${ledgerLabel(context.ledgerFile)}\n`);
      else writeLines(stdout, auditTableLines(rows, ledgerLabel(context.ledgerFile), lineChars));
      return EXIT.ok;
    }
    const limits: { events?: number; strikes?: number } = {};
    if (options.events !== undefined) limits.events = options.events;
    if (options.strikes !== undefined) limits.strikes = options.strikes;
    const report = await ledger.sourceReport(source, limits);
    if (report === null) throw new CliFailure(`${source} has no record in ${ledgerLabel(context.ledgerFile)}; \`corral audit\` lists the sources it knows`);
    // Capability uses (fetch, ctx.fs, ctx.state) are kept beside the ledger, in the same file.
    const capabilities = await readCapabilityUses(context.ledgerFile, source);
    const scripts = await readScriptReport(ledger, source);
    if (options.json) stdout.write(toJson({ ...report, capabilities, ...scripts.json }));
    else writeLines(stdout, [...sourceReportLines(report, lineChars), ...scripts.lines(lineChars), ...capabilityLines(capabilities, lineChars)]);
    return EXIT.ok;
  });
}

/** A script source's tools, or the script sources that called a source's tools: as JSON members and as lines. */
async function readScriptReport(ledger: Ledger, source: string): Promise<{ json: Record<string, unknown>; lines: (lineChars: number) => string[] }> {
  if (checkSourceId(source) === "code") {
    const scriptTools = await ledger.scriptTools(source);
    return { json: { scriptTools }, lines: (lineChars) => scriptToolsLines(scriptTools, lineChars) };
  }
  const scriptCallers = await ledger.scriptCallers(source);
  return { json: { scriptCallers }, lines: (lineChars) => scriptCallersLines(scriptCallers, lineChars) };
}
