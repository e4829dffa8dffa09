/**
 * @module src/ledger/sqlite
 * The SQLite backend of the ledger: one file, one writer (the host), WAL
 * checkpoints off the event loop, and the dashboard's reader of that file.
 */
export { SQLITE_STORE_DEFAULTS, SqliteLedgerStore, SqliteStoreOptions } from "./store.js";
export { SqliteDashboardReader, checkLedgerFile } from "./dashboard.js";
