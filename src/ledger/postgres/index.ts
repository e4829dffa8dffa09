/**
 * @module src/ledger/postgres
 * The PostgreSQL backend of the ledger: the fleet's shared store, its
 * connection settings and schema (which the capability store reuses), and
 * the dashboard's reader of it.
 */
export { POSTGRES_STORE_DEFAULTS, POSTGRES_URL, PostgresStoreOptions, createPool, resolvePostgresOptions, type ResolvedPostgresOptions } from "./connection.js";
export { createTablesBeside, migratePostgres, quoteIdent } from "./schema.js";
export { PostgresLedgerStore } from "./store.js";
export { PostgresDashboardReader } from "./dashboard.js";
