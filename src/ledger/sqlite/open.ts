/**
 * @module src/ledger/sqlite/open
 * Opening the SQLite ledger: its options (strict, with their defaults), the
 * connection's pragmas and schema migration, and the one translation of a
 * driver's error into LedgerUnavailableError. The store (sqlite/store.ts)
 * owns the connection this returns and closes it.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { CorralError, describeIssues } from "../../errors.js";
import { LedgerUnavailableError } from "../errors.js";
import { migrate } from "./schema.js";
import { SAFETY_NET_CHECKPOINT_PAGES } from "../../../sandbox/shared/tuning.js";

export const SQLITE_STORE_DEFAULTS = {
  /** @default ".corral/ledger.db" */
  path: ".corral/ledger.db",
  /** How long a write waits for another process's lock. @default 5000 */
  busyTimeoutMs: 5_000,
  /** @default "normal" */
  synchronous: "normal" as "normal" | "full",
} as const;

export const SqliteStoreOptions = z.strictObject({
  path: z.string().min(1).optional(),
  busyTimeoutMs: z.number().int().min(0).max(600_000).optional(),
  synchronous: z.enum(["normal", "full"]).optional(),
});
export type SqliteStoreOptions = z.input<typeof SqliteStoreOptions>;

export type ResolvedSqliteOptions = { path: string; busyTimeoutMs: number; synchronous: "normal" | "full" };

/** Parses strictly and fills in the defaults; throws invalid_options naming the bad keys. */
export function resolveSqliteOptions(options: SqliteStoreOptions): ResolvedSqliteOptions {
  const parsed = SqliteStoreOptions.safeParse(options);
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `SqliteLedgerStore options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  return { ...SQLITE_STORE_DEFAULTS, ...parsed.data };
}

/** Opens the file (creating its folder), in WAL mode, with its schema up to date; the caller owns the connection. */
export function openSqlite(resolved: ResolvedSqliteOptions): Database.Database {
  return guard(resolved.path, "open", () => {
    if (resolved.path !== ":memory:") mkdirSync(dirname(resolved.path), { recursive: true });
    const db = new Database(resolved.path, { timeout: resolved.busyTimeoutMs });
    try {
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${resolved.synchronous.toUpperCase()}`);
      // Checkpoints run on WalCheckpointer's thread; this is the safety net.
      if (resolved.path !== ":memory:") db.pragma(`wal_autocheckpoint = ${SAFETY_NET_CHECKPOINT_PAGES}`);
      migrate(db, resolved.path);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  });
}

/** Driver and row errors become LedgerUnavailableError; corral's own errors pass through. */
export function guard<T>(path: string, what: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof CorralError) throw error;
    const cause = error as { code?: unknown; message?: unknown; name?: unknown };
    const code = typeof cause.code === "string" ? cause.code : cause.name === "ZodError" ? "unreadable_row" : "unknown";
    const hint = code.startsWith("SQLITE_BUSY") ? "another process holds the lock; retry, or raise busyTimeoutMs" : "check the file, or move it aside to start a new ledger";
    throw new LedgerUnavailableError(`the ledger database ${path} could not ${what}: ${String(cause.message)}; ${hint}`, { path, cause: code });
  }
}
