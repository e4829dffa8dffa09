/**
 * @module src/library
 * The library of agent-written tools: kept beside the ledger, shared by the
 * hosts of one store, versioned, loaded on first need.
 */
import { LEDGER_DEFAULTS, type LedgerStore } from "../ledger/index.js";
import { POSTGRES_URL } from "../ledger/postgres/index.js";
import { MemoryLibraryStore } from "./memory-store.js";
import { PostgresLibraryStore } from "./postgres-store.js";
import { SqliteLibraryStore } from "./sqlite-store.js";
import type { LibraryStore } from "./store.js";

export { ToolLibrary, type LibraryLimits } from "./library.js";
export { authorTools, hostLibrary, type HostLibrary, type LibraryTool, type LibraryVersion } from "./host-api.js";
export { MemoryLibraryStore, PostgresLibraryStore, SqliteLibraryStore, type LibraryStore };
export type { Published, StoredTool, StoredVersion } from "./types.js";

/**
 * The library beside a ledger store option: tables in the same SQLite file or
 * PostgreSQL schema; memory for a memory ledger or a ledger store object the
 * host cannot see into.
 */
export function libraryStoreFor(ledgerStore: string | false | LedgerStore | undefined): LibraryStore {
  const store = ledgerStore ?? LEDGER_DEFAULTS.store;
  if (typeof store !== "string" || store === ":memory:") return new MemoryLibraryStore();
  return POSTGRES_URL.test(store) ? new PostgresLibraryStore(store) : new SqliteLibraryStore(store);
}
