/**
 * @module src/ledger/store
 * LedgerStore: what the Ledger needs from a place to keep its record. Three
 * implementations (SQLite on disk, memory, PostgreSQL) pass one shared suite
 * (store.case.ts). The interface is asynchronous for PostgreSQL's sake: it
 * waits on the network; SQLite and memory answer at once.
 *
 * A store knows no policy: every change of state is decided by a pure
 * function the Ledger passes in, run inside the store's write transaction on
 * the state it replaces. Two processes on one database therefore never both
 * apply the same change (one expiry event, not two).
 */
import type { StoredScriptCallers, StoredScriptTools } from "./script-calls.js";
import type { Transition } from "./transitions.js";
import type { CallRecord, LedgerEvent, LoadRecord, SourceState, StrikeEntry, ToolErrorEntry, ToolRow, ToolVersionCounts, Totals } from "./types.js";

/**
 * Decides a change from the stored state. Must be pure and synchronous: a
 * store may run it inside a lock, and again when it retries a transaction.
 */
export type Decide = (state: SourceState) => Transition | null;
/**
 * `strikeTimes`: when the call is a strike, the times of the source's kept
 * strikes, newest first, this call's among them; empty for any other call,
 * since the policy only looks at strikes when one happens (and an ok call
 * then costs one read less).
 */
export type DecideAfterCall = (state: SourceState, strikeTimes: readonly number[]) => Transition | null;

export type RecordOptions = {
  /** How many of a source's latest strikes to keep (with their messages); older ones are dropped. */
  keepStrikes: number;
  decide: DecideAfterCall;
  /**
   * Nobody waits for this record: it may wait (up to COMMIT_BEHIND_MS in the
   * SQLite store) to share a commit with the records after it. Its promise
   * still settles only once it has committed. A store may ignore it.
   */
  behind?: boolean;
};

/** The state after a write, and the change that write made, if any. */
export type Applied = { state: SourceState; applied: Transition | null };

/**
 * What a store on a server says of its health (PostgresLedgerStore): the
 * server became unreachable (records wait in a bounded buffer), it is back
 * (the buffer was written), or a record could not be kept at all.
 */
export type StoreStatus =
  | { type: "unavailable"; since: number; cause: string; message: string; buffered: number }
  | { type: "restored"; since: number; downMs: number; written: number }
  /** The buffer was full: this record was refused, and record() rejected. */
  | { type: "record_refused"; source: string; callId: string; buffered: number }
  /** close() found the server still unreachable: these buffered records were never written. */
  | { type: "records_lost"; count: number; message: string };

/**
 * Told what a store does on its own: a record written late (after an
 * outage, when its promise had settled already) that changed a state, and
 * the store's health. Listeners must not throw.
 */
export type StoreWatcher = { lateChange(applied: Applied): void; status(status: StoreStatus): void };

/** `versions`: in no particular order (the report sorts them); `lastErrors`: newest first, at most ERRORS_KEPT_PER_TOOL. */
export type StoredTool = { tool: string; totals: Totals; lastStrike: ToolRow["lastStrike"]; versions: ToolVersionCounts[]; lastErrors: ToolErrorEntry[] };

/** A source as stored; the Ledger adds what is computed (totals, rates, order). */
export type StoredSource = {
  state: SourceState;
  versions: number;
  lastVersion: string | null;
  lastStrike: StrikeEntry | null;
  tools: StoredTool[];
};

export type StoredSourceDetail = StoredSource & {
  /** Newest first. */
  events: LedgerEvent[];
  /** Newest first. */
  strikes: StrikeEntry[];
};

export interface LedgerStore {
  readonly alive: boolean;
  /**
   * Counts `call` against its source, tool and version; keeps it with its
   * message if it is a strike, and among its tool's latest errors if it is
   * not ok (an ok call writes nothing but its counts); then stores what `options.decide` makes of
   * the state. Committed before the promise settles. A store may commit
   * records that arrive together in one transaction (group commit), each
   * applied in the order of the calls and deciding on the state the one
   * before it left; a failed commit rejects every record in it. Any other
   * method runs after the records issued before it. One exception: a store
   * on a server that is unreachable keeps the record in a bounded buffer and
   * settles at once with the state it last knew (`applied` null); the
   * record is written when the server is back, and a change it then makes
   * reaches the watchers (watch()).
   */
  recordCall(call: CallRecord, options: RecordOptions): Promise<Applied>;
  /**
   * Makes the source known from a successful load: its row (active if new),
   * the version (first seen now), and a row for each tool with zero calls.
   * Changes no count and no state; committed before the promise settles, so
   * readSource and listSources show it at once.
   */
  recordLoad(load: LoadRecord): Promise<void>;
  /** The stored state; an unknown source is active, never quarantined. */
  readState(source: string): Promise<SourceState>;
  /**
   * A number that changes whenever another writer (another process) has
   * committed since the last time it was read; this store's own commits do
   * not change it. Lets a reader that keeps what its own writes told it skip
   * reading state again. A store that cannot tell leaves it out.
   */
  changesElsewhere?(): number;
  /** Subscribes to late changes and health (a store that has neither leaves it out); returns the unsubscribe. */
  watch?(watcher: StoreWatcher): () => void;
  /** Reads the state and stores what `decide` makes of it, in one transaction. */
  transition(source: string, decide: Decide): Promise<Applied>;
  /** Every source with a call or a change of state, in no particular order. */
  listSources(): Promise<StoredSource[]>;
  /** One source with its latest events and strikes; null if it was never seen. */
  readSource(source: string, limits: { events: number; strikes: number }): Promise<StoredSourceDetail | null>;
  /**
   * What the scripts of `script` (a `code:` source) called: the counters of
   * the first `limit` (tool source, tool) pairs, every outcome kind of each,
   * most strikes first, then most calls, then by name; and how many pairs
   * there are. Counted by recordCall from each record's `via`.
   */
  readScriptTools(script: string, limit: number): Promise<StoredScriptTools>;
  /**
   * The script sources whose scripts called tools of `source`, each with its
   * totals over them: the first `limit`, most strikes first, then most
   * calls, then by name; and how many there are.
   */
  readScriptCallers(source: string, limit: number): Promise<StoredScriptCallers>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Duck-typing for options parsing: a LedgerStore passed in by the caller. */
export function isLedgerStore(value: unknown): value is LedgerStore {
  if (typeof value !== "object" || value === null) return false;
  const store = value as Record<string, unknown>;
  return ["recordCall", "recordLoad", "readState", "transition", "listSources", "readSource", "readScriptTools", "readScriptCallers", "close"].every((name) => typeof store[name] === "function");
}
