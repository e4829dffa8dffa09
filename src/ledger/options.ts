/**
 * @module src/ledger/options
 * The Ledger's options: one strict zod schema, the defaults beside it, and
 * the function that resolves one into the other and opens the store.
 */
import { z } from "zod";
import { CorralError, describeIssues } from "../errors.js";
import { MemoryLedgerStore } from "./memory/index.js";
import { POSTGRES_URL, PostgresLedgerStore } from "./postgres/index.js";
import { DEFAULT_POLICY, QuarantinePolicy } from "./policy.js";
import { SqliteLedgerStore } from "./sqlite/index.js";
import { isLedgerStore, type LedgerStore, type StoreStatus } from "./store.js";
import type { LedgerEvent } from "./types.js";

export const LEDGER_DEFAULTS = {
  /**
   * Where the record is kept: a SQLite file; a `postgres://` URL for a
   * PostgresLedgerStore that several hosts share; `false` or ":memory:" for
   * a MemoryLedgerStore that forgets on exit; or a LedgerStore, which the
   * Ledger then owns and closes. @default ".corral/ledger.db"
   */
  store: ".corral/ledger.db" as string | false | LedgerStore,
  /** Fields given replace the default's one by one. @default DEFAULT_POLICY (3 strikes in 10 min → 15 min) */
  policy: DEFAULT_POLICY as QuarantinePolicy,
  /** Strikes kept with their messages per source. @default 10 */
  recentStrikes: 10,
  /** Events a sourceReport lists when not told. @default 20 */
  recentEvents: 20,
  /** The clock, in ms since the epoch; tests pass their own. @default Date.now */
  now: Date.now as () => number,
};

export const LedgerOptions = z.strictObject({
  store: z
    .union([z.string().min(1), z.literal(false), z.custom<LedgerStore>(isLedgerStore, "store must be a file path, a postgres:// URL, false, \":memory:\" or a LedgerStore")])
    .optional(),
  policy: QuarantinePolicy.partial().optional(),
  recentStrikes: z.number().int().min(1).max(1_000).optional(),
  recentEvents: z.number().int().min(0).max(10_000).optional(),
  now: z.custom<() => number>((value) => typeof value === "function", "now must be a function returning ms since the epoch").optional(),
  /**
   * Told of every change of state this ledger commits (never of another
   * process's), after the commit, including expiries found by check(). It
   * must not throw: a throw reaches the caller of the method that made the
   * change, although the change stands.
   */
  onEvent: z.custom<(event: LedgerEvent) => void>((value) => typeof value === "function", "onEvent must be a function").optional(),
  /** Told of the store's health: a server store that became unreachable, came back, or refused or lost records. Must not throw. */
  onStoreStatus: z.custom<(status: StoreStatus) => void>((value) => typeof value === "function", "onStoreStatus must be a function").optional(),
});
export type LedgerOptions = z.input<typeof LedgerOptions>;

export type ResolvedLedgerOptions = {
  store: LedgerStore;
  policy: QuarantinePolicy;
  recentStrikes: number;
  recentEvents: number;
  now: () => number;
  onEvent: ((event: LedgerEvent) => void) | undefined;
  onStoreStatus: ((status: StoreStatus) => void) | undefined;
};

/** Parses the options strictly and opens the store they name. */
export function resolveLedgerOptions(options: unknown): ResolvedLedgerOptions {
  const parsed = LedgerOptions.safeParse(options ?? {});
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `Ledger options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  const given = parsed.data;
  const policy = QuarantinePolicy.parse({ ...LEDGER_DEFAULTS.policy, ...given.policy });
  const store = given.store ?? LEDGER_DEFAULTS.store;
  return {
    store: openStore(store),
    policy,
    recentStrikes: given.recentStrikes ?? LEDGER_DEFAULTS.recentStrikes,
    recentEvents: given.recentEvents ?? LEDGER_DEFAULTS.recentEvents,
    now: given.now ?? LEDGER_DEFAULTS.now,
    onEvent: given.onEvent,
    onStoreStatus: given.onStoreStatus,
  };
}

export function openStore(store: string | false | LedgerStore): LedgerStore {
  if (store === false || store === ":memory:") return new MemoryLedgerStore();
  if (typeof store === "string" && POSTGRES_URL.test(store)) return new PostgresLedgerStore({ url: store });
  if (typeof store === "string") return new SqliteLedgerStore({ path: store });
  if (!store.alive) throw new CorralError("invalid_options", "options.store is a LedgerStore that was closed already; pass an open one");
  return store;
}
