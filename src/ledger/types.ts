/**
 * @module src/ledger/types
 * The ledger's data, as zod schemas with the types derived from them: what a
 * caller records (CallRecord), what a source's state is (SourceState), the
 * audit events of its changes (LedgerEvent), and the rows the operator's
 * reports are made of (SourceRow, SourceReport). Everything here is plain
 * data, the same from every store.
 */
import { z } from "zod";
import { OUTCOME_KINDS, OutcomeKind, STRIKE_KINDS, type ErrorKind } from "../result.js";
import { CALLER_ID_PATTERN } from "../registry/caller.js";
import { SOURCE_PATTERN } from "../registry/source.js";

/** A tool's text reaches the ledger through error messages; cap what it can make us keep. */
export const MAX_MESSAGE_CHARS = 1_000;

/** A record's message as the ledger keeps it (checked records and the host's own alike). */
export const capMessage = (text: string): string => (text.length > MAX_MESSAGE_CHARS ? text.slice(0, MAX_MESSAGE_CHARS) : text);

/** Times are milliseconds since the epoch, from the ledger's clock. */
export const EpochMs = z.number().int().nonnegative();
export const SourceId = z.string().regex(SOURCE_PATTERN, "a source id is plugin:<path>, agent:<id>, host:<name> or code:<caller id>");
/** A script's source: the `code:` source a Code Mode script runs as. */
export const ScriptSourceId = SourceId.refine((source) => source.startsWith("code:"), "a script source is code:<caller id>");
/** A version is the content hash of the bundle the call ran. */
export const Version = z.string().regex(/^[0-9a-f]{64}$/, "a version is a sha256 in 64 lower-case hex digits");

/** A caller id, as src/registry/caller.ts makes them: `mcp:<session>`, `model:<uuid>`. */
export const CallerId = z.string().regex(CALLER_ID_PATTERN, "a caller id is 1-128 letters, digits, ':', '.', '_' or '-'");

export function isStrike(outcome: OutcomeKind): boolean {
  return outcome !== "ok" && STRIKE_KINDS.has(outcome as ErrorKind);
}

/** How many of a tool's latest non-ok calls the ledger keeps with their messages; older ones are dropped. */
export const ERRORS_KEPT_PER_TOOL = 5;

/** One finished call, as the host saw it. */
export const CallRecord = z.strictObject({
  source: SourceId,
  tool: z.string().min(1).max(256),
  version: Version,
  callId: z.string().min(1).max(128),
  outcome: OutcomeKind,
  wallMs: z.number().nonnegative().finite(),
  cpuMs: z.number().nonnegative().finite(),
  heapBytes: z.number().int().nonnegative(),
  message: z.string().transform(capMessage).optional(),
  /** Who the call was made for (a conversation, an MCP session): absent for the embedding program's own calls. */
  caller: CallerId.optional(),
  /** A Code Mode script's tool call: the script's source (`code:<caller id>`); absent for every other call. */
  via: ScriptSourceId.optional(),
  at: EpochMs,
});
export type CallRecord = z.infer<typeof CallRecord>;

/** What record() takes: `at` defaults to the ledger's clock. */
export const CallInput = CallRecord.extend({ at: EpochMs.optional() });

/**
 * A successful load: the source, the version loaded and its tools' names.
 * The ledger knows the source (and its tools, with zero calls) from then on.
 */
export const LoadRecord = z.strictObject({
  source: SourceId,
  version: Version,
  tools: z.array(z.string().min(1).max(256)).max(1_000),
  at: EpochMs,
});
export type LoadRecord = z.infer<typeof LoadRecord>;
export const LoadInput = LoadRecord.extend({ at: EpochMs.optional() });
export type LoadInput = z.input<typeof LoadInput>;
export type CallInput = z.input<typeof CallInput>;

/** `since`: when the source last became active (a release or an expiry); null if it never was quarantined. */
export const ActiveState = z.strictObject({
  source: SourceId,
  state: z.literal("active"),
  since: EpochMs.nullable(),
});
export type ActiveState = z.infer<typeof ActiveState>;

/** `until` null: until an operator releases it. */
export const QuarantinedState = z.strictObject({
  source: SourceId,
  state: z.literal("quarantined"),
  since: EpochMs,
  until: EpochMs.nullable(),
  reason: z.string(),
  actor: z.string(),
});
export type QuarantinedState = z.infer<typeof QuarantinedState>;

export const SourceState = z.discriminatedUnion("state", [ActiveState, QuarantinedState]);
export type SourceState = z.infer<typeof SourceState>;

export const EVENT_KINDS = ["quarantine", "release", "expire", "manual_quarantine"] as const;
export const EventKind = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof EventKind>;

/** The actor of changes the ledger makes on its own: a policy quarantine and an expiry. */
export const POLICY_ACTOR = "policy";

/**
 * One change of a source's state. `until`: for a quarantine, when it ends
 * (null: until released); for an expiry, the end that passed; else null.
 */
export const LedgerEvent = z.strictObject({
  at: EpochMs,
  source: SourceId,
  kind: EventKind,
  reason: z.string(),
  until: EpochMs.nullable(),
  actor: z.string().min(1),
});
export type LedgerEvent = z.infer<typeof LedgerEvent>;

/** A strike kept with its message: the last few per source. */
export const StrikeEntry = z.strictObject({
  at: EpochMs,
  tool: z.string(),
  version: Version,
  callId: z.string(),
  outcome: OutcomeKind.refine(isStrike, "a strike is a timeout, memory or crash outcome"),
  message: z.string(),
  caller: CallerId.optional(),
});
export type StrikeEntry = z.infer<typeof StrikeEntry>;

const Count = z.number().int().nonnegative();

/** Every outcome kind has a counter, zero when it never happened. */
export const OutcomeCounts = z.record(OutcomeKind, Count);
export type OutcomeCounts = z.infer<typeof OutcomeCounts>;

export const Totals = z.strictObject({
  calls: Count,
  strikes: Count,
  outcomes: OutcomeCounts,
  totalWallMs: z.number().nonnegative(),
  totalCpuMs: z.number().nonnegative(),
  /** The wall time of the most recent call; null before the first. */
  lastWallMs: z.number().nonnegative().nullable(),
  maxHeapBytes: Count,
  lastCallAt: EpochMs.nullable(),
});
export type Totals = z.infer<typeof Totals>;

export function emptyTotals(): Totals {
  const outcomes = Object.fromEntries(OUTCOME_KINDS.map((kind) => [kind, 0])) as OutcomeCounts;
  return { calls: 0, strikes: 0, outcomes, totalWallMs: 0, totalCpuMs: 0, lastWallMs: null, maxHeapBytes: 0, lastCallAt: null };
}

/** A tool's calls at one version (bundle hash): `errors` are its non-ok calls, strikes among them. */
export const ToolVersionCounts = z.strictObject({
  version: Version,
  calls: Count,
  errors: Count,
  strikes: Count,
  /** When the source was first seen at this version; null if the ledger never noted it. */
  firstSeenAt: EpochMs.nullable(),
});
export type ToolVersionCounts = z.infer<typeof ToolVersionCounts>;

/**
 * One of a tool's latest non-ok calls, kept with its message (capped at
 * MAX_MESSAGE_CHARS). Never the call's input or output: a record carries none.
 */
export const ToolErrorEntry = z.strictObject({
  at: EpochMs,
  version: Version,
  callId: z.string(),
  outcome: OutcomeKind.refine((kind) => kind !== "ok", "an error is a non-ok outcome"),
  message: z.string(),
  caller: CallerId.optional(),
});
export type ToolErrorEntry = z.infer<typeof ToolErrorEntry>;

export const ToolRow = z.strictObject({
  tool: z.string(),
  totals: Totals,
  /** strikes / calls; 0 before the first call. */
  strikeRate: z.number().min(0).max(1),
  /** Non-ok calls (every kind but `ok`, strikes included) / calls; 0 before the first call. */
  errorRate: z.number().min(0).max(1),
  lastStrike: z.strictObject({ at: EpochMs, outcome: OutcomeKind, message: z.string() }).nullable(),
  /** Newest version first. Counted from schema version 5 on: calls recorded before it are in `totals` only. */
  versions: z.array(ToolVersionCounts),
  /** Newest first, at most ERRORS_KEPT_PER_TOOL. */
  lastErrors: z.array(ToolErrorEntry),
});
export type ToolRow = z.infer<typeof ToolRow>;

/** One line of summary(): a source's state and its record across every version. */
export const SourceRow = z.strictObject({
  source: SourceId,
  state: SourceState,
  versions: Count,
  lastVersion: Version.nullable(),
  totals: Totals,
  strikeRate: z.number().min(0).max(1),
  /** Non-ok calls / calls over every tool; 0 before the first call. */
  errorRate: z.number().min(0).max(1),
  lastStrike: StrikeEntry.nullable(),
  /** Sorted by strikes, then error rate, then calls, then name. */
  tools: z.array(ToolRow),
});
export type SourceRow = z.infer<typeof SourceRow>;

/** sourceReport(): a SourceRow plus its recent state changes and strikes, newest first. */
export const SourceReport = SourceRow.extend({
  events: z.array(LedgerEvent),
  strikes: z.array(StrikeEntry),
});
export type SourceReport = z.infer<typeof SourceReport>;
