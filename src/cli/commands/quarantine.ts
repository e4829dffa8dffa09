/**
 * @module src/cli/commands/quarantine
 * `corral quarantine <source>` and `corral release <source>`: an operator's
 * hand on the ledger file. A host sharing the file asks the ledger before
 * every call, so its next call to the source's tools obeys at once; each
 * change is an event in the ledger under the operator's name.
 */
import { userInfo } from "node:os";
import { InvalidArgumentError } from "commander";
import type { StateChange } from "../../index.js";
import { checkSourceId } from "../../registry/source.js";
import { EXIT, withCliLedger, writeLines, type CliContext, type ExitCode } from "../context.js";
import { toJson } from "../format.js";
import { stateLine } from "../format-audit.js";

export const QUARANTINE_DEFAULTS = {
  /** @default "quarantined by an operator" */
  reason: "quarantined by an operator",
  /** null: until released. @default null */
  untilMs: null as number | null,
};

export type QuarantineOptions = {
  reason?: string;
  /** When it ends, ms since the epoch; null: until released. */
  untilMs?: number | null;
  /** @default defaultActor() */
  actor?: string;
  json: boolean;
};

export type ReleaseOptions = { reason?: string; actor?: string; json: boolean };

export async function quarantineCommand(source: string, options: QuarantineOptions, context: CliContext): Promise<ExitCode> {
  checkSourceId(source);
  return withCliLedger(context, async (ledger) => {
    const change = await ledger.quarantine(source, {
      reason: options.reason ?? QUARANTINE_DEFAULTS.reason,
      until: options.untilMs ?? QUARANTINE_DEFAULTS.untilMs,
      actor: options.actor ?? defaultActor(),
    });
    report(change, [], options.json, context);
    return EXIT.ok;
  });
}

/** Releasing an active source is no error: the wanted state holds, and nothing is recorded. */
export async function releaseCommand(source: string, options: ReleaseOptions, context: CliContext): Promise<ExitCode> {
  checkSourceId(source);
  return withCliLedger(context, async (ledger) => {
    const request: { actor: string; reason?: string } = { actor: options.actor ?? defaultActor() };
    if (options.reason !== undefined) request.reason = options.reason;
    const change = await ledger.release(source, request);
    const unchanged = change.events.length === 0 ? [`${source} was not quarantined; nothing changed`] : [];
    report(change, unchanged, options.json, context);
    return EXIT.ok;
  });
}

function report(change: StateChange, before: string[], json: boolean, context: CliContext): void {
  if (json) context.io.stdout.write(toJson(change));
  else writeLines(context.io.stdout, [...before, stateLine(change.state)]);
}

/** `cli:<login>` (or `<via>:<login>`): the ledger's events name who acted, and through what. */
export function defaultActor(via = "cli"): string {
  try {
    return `${via}:${userInfo().username}`;
  } catch {
    // userInfo() throws when the uid has no passwd entry (some containers).
    return `${via}:${process.env.USER ?? process.env.USERNAME ?? "unknown"}`;
  }
}

const DURATION = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A date first: `Date.parse` alone takes "1" or "May 5" too, which an operator hardly means. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** `--until`: a duration from now (30m, 2h, 1.5d) or an ISO time; it must lie in the future. */
export function parseUntil(text: string, nowMs: number = Date.now()): number {
  const trimmed = text.trim();
  const duration = DURATION.exec(trimmed);
  let untilMs: number;
  if (duration !== null) {
    untilMs = nowMs + Math.round(Number(duration[1]) * (UNIT_MS[duration[2] ?? ""] ?? Number.NaN));
  } else if (ISO_DATE.test(trimmed)) {
    untilMs = Date.parse(trimmed);
  } else {
    throw new InvalidArgumentError("expected a duration such as 30m, 2h or 1d, or an ISO time such as 2030-01-31T12:00:00Z.");
  }
  if (!Number.isFinite(untilMs)) throw new InvalidArgumentError("it is not a valid time.");
  if (untilMs <= nowMs) throw new InvalidArgumentError(`it is not in the future (${new Date(untilMs).toISOString()}); omit --until to quarantine until released.`);
  return untilMs;
}
