/**
 * @module src/ledger/ledger
 * Ledger: the record of every call per source and tool, and the quarantine
 * that follows from it. The Ledger owns its store (the one it opened, or the
 * one it was handed) and closes it in close(); it owns nothing else. It
 * keeps no state of its own between calls: every answer comes from the
 * store, so a release made by another process (the CLI) counts at once.
 *
 * ```
 *  host call ends ─▶ record(call) ─▶ store: count, keep strike, decide (policy) ─▶ commit
 *  host call starts ─▶ check(source) ─▶ quarantined? (an expired quarantine ends here, once)
 *  operator ─▶ quarantine() / release() ─▶ store: decide, append event ─▶ commit
 *  operator ─▶ summary() / sourceReport()
 *  operator ─▶ scriptTools(code:x) / scriptCallers(source): what Code Mode scripts called
 * ```
 */
import { z } from "zod";
import { checkArgument, checkOptionalArgument } from "../arguments/check.js";
import { CorralError, describeIssues } from "../errors.js";
import { checkSourceId } from "../registry/source.js";
import { InvalidCallRecordError, LedgerClosedError } from "./errors.js";
import { resolveLedgerOptions, type LedgerOptions, type ResolvedLedgerOptions } from "./options.js";
import type { QuarantinePolicy } from "./policy.js";
import { byTrouble, toSourceRow } from "./report.js";
import { MAX_SCRIPT_REPORT_ROWS, SCRIPT_REPORT_ROWS, toScriptToolRows, type ScriptCallersReport, type ScriptToolsReport } from "./script-calls.js";
import type { Applied, LedgerStore } from "./store.js";
import { afterCall, expire, isExpired, quarantineByHand, releaseByHand } from "./transitions.js";
import { CallInput, EpochMs, LoadInput, capMessage, isStrike, type CallRecord, type LedgerEvent, type QuarantinedState, type SourceReport, type SourceRow, type SourceState } from "./types.js";

export type RecordResult = {
  /** Whether this call was a strike against its source. */
  strike: boolean;
  /** The source's state after this call. */
  state: SourceState;
  /** Set when this call put the source in quarantine. */
  quarantined?: QuarantinedState;
  /** The changes of state this call caused, oldest first: an expiry, a quarantine, or both. */
  events: LedgerEvent[];
};

/** The state after an operator's action and the events it caused (none when nothing changed). */
export type StateChange = { state: SourceState; events: LedgerEvent[] };

const Actor = z.string().min(1).max(256);
const Reason = z.string().min(1).max(1_000);
export const QuarantineRequest = z.strictObject({
  reason: Reason,
  /** When the quarantine ends, in ms since the epoch; null or left out: until released. */
  until: EpochMs.nullable().optional(),
  actor: Actor,
});
export type QuarantineRequest = z.input<typeof QuarantineRequest>;
export const ReleaseRequest = z.strictObject({ actor: Actor, reason: Reason.optional() });
export type ReleaseRequest = z.input<typeof ReleaseRequest>;

const RecordOptions = z.strictObject({ writeBehind: z.boolean().optional() });
const ReportLimits = z.strictObject({ events: z.number().int().nonnegative().optional(), strikes: z.number().int().nonnegative().optional() });
const ScriptReportLimit = z.strictObject({ limit: z.number().int().min(1).max(MAX_SCRIPT_REPORT_ROWS).optional() });

let recordOwn: (ledger: Ledger, call: Omit<CallRecord, "at">, writeBehind: boolean) => Promise<RecordResult>;

/** Records a call of the host's own call path (see Ledger's static block); as ledger.record, without parsing the record again. */
export function recordOwnCall(ledger: Ledger, call: Omit<CallRecord, "at">, writeBehind: boolean): Promise<RecordResult> {
  try {
    return recordOwn(ledger, call, writeBehind);
  } catch (error) {
    return Promise.reject(error);
  }
}

export class Ledger {
  readonly #store: LedgerStore;
  readonly #options: ResolvedLedgerOptions;
  /** Enough strikes for the policy to see its window, and at least as many as reports show. */
  readonly #keepStrikes: number;
  #closed = false;

  constructor(options: LedgerOptions = {}) {
    this.#options = resolveLedgerOptions(options);
    this.#store = this.#options.store;
    this.#keepStrikes = Math.max(this.#options.recentStrikes, this.#options.policy.strikes);
    // A server store writes records late after an outage: their changes of state are announced then.
    this.#store.watch?.({
      lateChange: (applied) => this.#announce(applied.applied),
      status: (status) => this.#options.onStoreStatus?.(status),
    });
  }

  get alive(): boolean {
    return !this.#closed;
  }

  get policy(): QuarantinePolicy {
    return { ...this.#options.policy };
  }

  #assertAlive(): void {
    if (this.#closed) throw new LedgerClosedError("the ledger");
  }

  #now(): number {
    return Math.floor(this.#options.now());
  }

  /**
   * Counts one finished call; committed before the promise settles.
   * `writeBehind`: the caller does not wait for it, so the store may hold it
   * briefly to share one commit with the records after it (SQLite: up to
   * COMMIT_BEHIND_MS); the promise then settles that much later.
   */
  async record(input: CallInput, given?: { writeBehind?: boolean }): Promise<RecordResult> {
    this.#assertAlive();
    const options = checkOptionalArgument("ledger.record(input, options)", "options", RecordOptions, given, "{ writeBehind?: boolean }") ?? {};
    const now = this.#now();
    const parsed = CallInput.safeParse(input);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`).join("; ");
      throw new InvalidCallRecordError(detail, parsed.error.issues);
    }
    return this.#record({ ...parsed.data, at: parsed.data.at ?? now }, now, options.writeBehind === true);
  }

  /**
   * The host's own call path records through here (recordOwnCall): its
   * record is made of values checked where they entered the host (the
   * catalog's source, tool and version, its own call id, the worker's
   * reply), so it is not parsed again on every call.
   */
  static {
    recordOwn = (ledger, call, writeBehind) => {
      ledger.#assertAlive();
      const now = ledger.#now();
      return ledger.#record({ ...call, ...(call.message !== undefined ? { message: capMessage(call.message) } : {}), at: now }, now, writeBehind);
    };
  }

  async #record(call: CallRecord, now: number, behind: boolean): Promise<RecordResult> {
    const policy = this.#options.policy;
    const { state, applied } = await this.#store.recordCall(call, {
      keepStrikes: this.#keepStrikes,
      decide: (current, strikeTimes) => afterCall(current, call, strikeTimes, now, policy),
      behind,
    });
    const events = this.#announce(applied);
    const result: RecordResult = { strike: isStrike(call.outcome), state, events };
    if (events.some((event) => event.kind === "quarantine") && state.state === "quarantined") result.quarantined = state;
    return result;
  }

  /**
   * Makes a source known from a successful load: `sourceReport` and
   * `summary` show it and its tools (zero calls) before any call. Counts
   * nothing and changes no state.
   */
  async recordLoad(input: LoadInput): Promise<void> {
    this.#assertAlive();
    const load = checkArgument("ledger.recordLoad(load)", "load", LoadInput, input, "{ source, version, tools, at? }");
    await this.#store.recordLoad({ ...load, at: load.at ?? this.#now() });
  }

  /** See LedgerStore.changesElsewhere; undefined when the store cannot tell. */
  changesElsewhere(): number | undefined {
    this.#assertAlive();
    return this.#store.changesElsewhere?.();
  }

  /** The source's state now; a timed quarantine that is over ends here, recorded once as `expire`. */
  async check(source: string): Promise<SourceState> {
    this.#assertAlive();
    checkSourceId(source);
    const now = this.#now();
    const state = await this.#store.readState(source);
    if (!isExpired(state, now)) return state;
    return this.#expire(source, now);
  }

  /** An operator's quarantine; on a quarantined source it replaces the reason and the end. */
  async quarantine(source: string, request: QuarantineRequest): Promise<StateChange> {
    this.#assertAlive();
    checkSourceId(source);
    const now = this.#now();
    const { reason, until, actor } = parseRequest(QuarantineRequest, request, "quarantine");
    if (until !== undefined && until !== null && until <= now) {
      throw new CorralError("invalid_options", `quarantine() was given an until (${until}) that is not after now (${now}); pass a later time, or null for until released`);
    }
    const applied = await this.#store.transition(source, (state) => quarantineByHand(state, { reason, until: until ?? null, actor }, now));
    return { state: applied.state, events: this.#announce(applied.applied) };
  }

  /** An operator's release; on an active source it changes and records nothing. */
  async release(source: string, request: ReleaseRequest): Promise<StateChange> {
    this.#assertAlive();
    checkSourceId(source);
    const now = this.#now();
    const { actor, reason } = parseRequest(ReleaseRequest, request, "release");
    const applied = await this.#store.transition(source, (state) => releaseByHand(state, { actor, reason: reason ?? `released by ${actor}` }, now));
    return { state: applied.state, events: this.#announce(applied.applied) };
  }

  /** Every source seen, in order of trouble: quarantined first, then most strikes, then highest strike rate. */
  async summary(): Promise<SourceRow[]> {
    this.#assertAlive();
    const now = this.#now();
    const stored = await this.#store.listSources();
    for (const entry of stored) {
      if (isExpired(entry.state, now)) entry.state = await this.#expire(entry.state.source, now);
    }
    return stored.map(toSourceRow).sort(byTrouble);
  }

  /** One source with its latest state changes and strikes, newest first; null if it was never seen. */
  async sourceReport(source: string, given?: { events?: number; strikes?: number }): Promise<SourceReport | null> {
    this.#assertAlive();
    checkSourceId(source);
    const limits = checkOptionalArgument("ledger.sourceReport(source, limits)", "limits", ReportLimits, given, "{ events?, strikes? } with counts") ?? {};
    const now = this.#now();
    const events = limits.events ?? this.#options.recentEvents;
    const strikes = Math.min(limits.strikes ?? this.#options.recentStrikes, this.#keepStrikes);
    if (isExpired(await this.#store.readState(source), now)) await this.#expire(source, now);
    const stored = await this.#store.readSource(source, { events, strikes });
    if (stored === null) return null;
    return { ...toSourceRow(stored), events: stored.events, strikes: stored.strikes };
  }

  /**
   * The tools that the scripts of `script` (a `code:<caller id>` source)
   * called, one row per tool source and tool: calls, strikes, and the count
   * of each outcome kind that happened; most strikes first, then most calls.
   * At most `limit` rows (default 50); `total` says how many there are. A
   * source that ran no script has none.
   */
  async scriptTools(script: string, given?: { limit?: number }): Promise<ScriptToolsReport> {
    this.#assertAlive();
    checkSourceId(script);
    const limit = this.#scriptLimit("ledger.scriptTools(script, options)", given);
    const stored = await this.#store.readScriptTools(script, limit);
    return { script, total: stored.total, rows: toScriptToolRows(stored.counts).slice(0, limit) };
  }

  /**
   * The script sources whose scripts called tools of `source`, each with its
   * calls and strikes over them; most strikes first, then most calls. At
   * most `limit` rows (default 50); `total` says how many there are.
   */
  async scriptCallers(source: string, given?: { limit?: number }): Promise<ScriptCallersReport> {
    this.#assertAlive();
    checkSourceId(source);
    const limit = this.#scriptLimit("ledger.scriptCallers(source, options)", given);
    const stored = await this.#store.readScriptCallers(source, limit);
    return { source, total: stored.total, rows: stored.rows };
  }

  #scriptLimit(what: string, given: unknown): number {
    return checkOptionalArgument(what, "options", ScriptReportLimit, given, `{ limit?: 1 to ${MAX_SCRIPT_REPORT_ROWS} }`)?.limit ?? SCRIPT_REPORT_ROWS;
  }

  /** Expires inside the store's transaction: when two processes both see the end, one records it. */
  async #expire(source: string, now: number): Promise<SourceState> {
    const applied = await this.#store.transition(source, (state) => expire(state, now));
    this.#announce(applied.applied);
    return applied.state;
  }

  #announce(applied: Applied["applied"]): LedgerEvent[] {
    const events = applied?.events ?? [];
    const onEvent = this.#options.onEvent;
    if (onEvent !== undefined) for (const event of events) onEvent(event);
    return events;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#store.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function parseRequest<T extends z.ZodType>(schema: T, request: unknown, method: string): z.infer<T> {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data;
  const detail = describeIssues(parsed.error.issues);
  throw new CorralError("invalid_options", `${method}() options are invalid: ${detail}`, { issues: parsed.error.issues });
}
