/**
 * @module src/ledger/sqlite/dashboard
 * SqliteDashboardReader: the dashboard's questions (dashboard-reader.ts)
 * answered by the shared SqlDashboardReader on a read-only connection of its
 * own to a ledger file, so that no page can write and a slow read never
 * holds the writer's connection. Every aggregate and every page is computed
 * by SQLite; a million recorded calls are counters in `tools` already, and
 * what grows with history (strikes, events, strike minutes) is read by index
 * and LIMIT.
 *
 * It refuses, before reading anything else, a file that is not a ledger: a
 * missing file (it never creates one), a file that is not SQLite, or a
 * SQLite file without the ledger's tables or from a newer corral.
 *
 * version() is `PRAGMA data_version` on this connection: it changes when any
 * other connection commits to the file.
 */
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { CorralError } from "../../errors.js";
import { dashboardSql, SQLITE_DIALECT, type DashboardStatement } from "../sql/dashboard-sql.js";
import { LedgerUnavailableError, NotALedgerError } from "../errors.js";
import { SCHEMA_VERSION } from "./schema.js";
import { SqlDashboardReader, type DashboardDb, type DashboardQuery, type Row } from "../sql/dashboard-reader.js";

/** The tables of each schema version, cumulative. */
const LEDGER_TABLES: Record<number, readonly string[]> = {
  1: ["sources", "versions", "tools", "strikes", "events"],
  2: ["sources", "versions", "tools", "strikes", "events", "strike_minutes"],
  3: ["sources", "versions", "tools", "strikes", "events", "strike_minutes"],
  4: ["sources", "versions", "tools", "strikes", "events", "strike_minutes", "script_calls"],
};

export class SqliteDashboardReader extends SqlDashboardReader {
  readonly path: string;

  /** Opens `path` read-only; throws NotALedgerError unless it is a ledger at this corral's schema (a host or the CLI migrates an older one). */
  constructor(path: string) {
    super(new SqliteDashboardDb(path), "the dashboard's ledger reader");
    this.path = path;
  }
}

class SqliteDashboardDb implements DashboardDb {
  readonly #path: string;
  readonly #db: Database.Database;
  readonly #statements: Record<DashboardStatement, Database.Statement>;
  readonly #dataVersion: Database.Statement;
  /** Snapshots run one at a time: the connection has one transaction. */
  #snapshots: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
    this.#db = openLedgerReadOnly(path);
    try {
      checkLedgerSchema(this.#db, path, SCHEMA_VERSION);
      const sql = dashboardSql(SQLITE_DIALECT);
      this.#statements = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, this.#db.prepare(text)])) as Record<DashboardStatement, Database.Statement>;
      this.#dataVersion = this.#db.prepare("PRAGMA data_version").pluck();
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof CorralError) throw error;
      throw new LedgerUnavailableError(`the ledger database ${this.#path} could not be read: ${(error as Error).message}`, { path: this.#path, cause: (error as { code?: string }).code ?? "unknown" });
    }
  }

  query: DashboardQuery = async (statement, params) => this.#guard(() => this.#statements[statement].all(params) as Row[]);

  snapshot<T>(work: (query: DashboardQuery) => Promise<T>): Promise<T> {
    // A deferred read transaction: its snapshot is taken at its first read and held to COMMIT.
    const run = async (): Promise<T> => {
      this.#guard(() => this.#db.exec("BEGIN"));
      try {
        const result = await work(this.query);
        this.#guard(() => this.#db.exec("COMMIT"));
        return result;
      } finally {
        if (this.#db.open && this.#db.inTransaction) this.#db.exec("ROLLBACK");
      }
    };
    const next = this.#snapshots.then(run, run);
    this.#snapshots = next.catch(() => undefined);
    return next;
  }

  async version(): Promise<number> {
    return this.#guard(() => this.#dataVersion.get() as number);
  }

  encodeList(values: readonly string[]): unknown {
    return SQLITE_DIALECT.encodeList(values);
  }

  async close(): Promise<void> {
    await this.#snapshots;
    this.#db.close();
  }
}

/**
 * Checks, read-only, that `path` is a corral ledger of schema version
 * `atLeast` up to this corral's, so that opening it with a LedgerStore
 * (which migrates, creating tables) never writes into somebody else's file.
 */
export function checkLedgerFile(path: string, atLeast = 1): void {
  const db = openLedgerReadOnly(path);
  try {
    checkLedgerSchema(db, path, atLeast);
  } finally {
    db.close();
  }
}

function checkLedgerSchema(db: Database.Database, path: string, atLeast: number): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new NotALedgerError(path, `its schema version ${version} is newer than this corral's ${SCHEMA_VERSION}; upgrade corral`);
  if (version === 0) throw new NotALedgerError(path, "a SQLite database without the ledger's schema");
  if (version < atLeast) throw new NotALedgerError(path, `its schema version ${version} is older than ${atLeast}; open it once with a host or the CLI to migrate it`);
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  const missing = (LEDGER_TABLES[version] ?? []).filter((table) => !tables.has(table));
  if (missing.length > 0) throw new NotALedgerError(path, `it lacks the tables ${missing.join(", ")}`);
}

/** Read-only, never created: a missing file or one that is not SQLite is NotALedgerError. */
function openLedgerReadOnly(path: string): Database.Database {
  if (path === ":memory:" || !existsSync(path)) throw new NotALedgerError(path, "no such file");
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code ?? "";
    if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") throw new NotALedgerError(path, "not a SQLite database");
    throw new LedgerUnavailableError(`the ledger database ${path} could not be opened: ${(error as Error).message}`, { path, cause: code || "unknown" });
  }
}
