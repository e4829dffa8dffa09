/**
 * @module src/ledger/postgres/dashboard
 * PostgresDashboardReader: the dashboard's questions answered by the shared
 * SqlDashboardReader on a PostgreSQL ledger, the one several hosts share.
 * It owns a small pool of its own whose sessions refuse writes
 * (default_transaction_read_only), so no page can write through it, and
 * frees it in close().
 *
 * It opens only a schema that a corral ledger of this version made (the
 * `meta` mark and version, read-only): the dashboard's Ledger, opened first,
 * migrates an older one; an empty or foreign schema is NotALedgerError.
 *
 * version(): a hash of the server's current snapshot (`pg_current_snapshot`:
 * the oldest running transaction, one past the newest completed one, and the
 * ones running between). Every commit of a writing transaction changes it,
 * and once it has changed the commit is visible to the next read, so the
 * page never misses a strike. Not chosen: a sequence each batch bumps
 * (nextval is outside the transaction: a reader can see the number before
 * the rows, then never again) and a NOTIFY per batch (a transaction that
 * notifies takes a database-wide lock at COMMIT: every host's commits would
 * queue behind each other). The price: writes by anyone on the same server
 * (another database too) change it, so on a busy server the page reloads at
 * every poll, as it does on a SQLite file that hosts write to.
 */
import type pg from "pg";
import { dashboardSql, postgresDialect, toPositional, type DashboardStatement } from "../sql/dashboard-sql.js";
import { NotALedgerError } from "../errors.js";
import { createPool, describeError, resolvePostgresOptions, withClient, type PostgresStoreOptions } from "./connection.js";
import { inSnapshot } from "./reads.js";
import { PG_SCHEMA_VERSION, quoteIdent } from "./schema.js";
import { SqlDashboardReader, type DashboardDb, type DashboardQuery, type Row } from "../sql/dashboard-reader.js";
import { DASHBOARD_READER_CONNECTIONS } from "../../../sandbox/shared/tuning.js";

type Compiled = { text: string; names: string[] };

export class PostgresDashboardReader extends SqlDashboardReader {
  /** The database as errors show it, without a password. */
  readonly where: string;
  readonly schema: string;

  private constructor(db: PostgresDashboardDb) {
    super(db, "the dashboard's PostgreSQL ledger reader");
    this.where = db.where;
    this.schema = db.schema;
  }

  /** Connects and checks, read-only, that the schema holds a corral ledger of this version; rejects with NotALedgerError or LedgerUnavailableError. */
  static async open(options: PostgresStoreOptions): Promise<PostgresDashboardReader> {
    const db = new PostgresDashboardDb(options);
    try {
      await db.check();
    } catch (error) {
      await db.close();
      throw error;
    }
    return new PostgresDashboardReader(db);
  }
}

class PostgresDashboardDb implements DashboardDb {
  readonly where: string;
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #statements: Record<DashboardStatement, Compiled>;
  readonly #encodeList: (values: readonly string[]) => unknown;

  constructor(options: PostgresStoreOptions) {
    const resolved = resolvePostgresOptions(options);
    this.where = resolved.where;
    this.schema = resolved.schema;
    const dialect = postgresDialect(quoteIdent(resolved.schema));
    this.#encodeList = dialect.encodeList;
    this.#statements = Object.fromEntries(Object.entries(dashboardSql(dialect)).map(([name, text]) => [name, toPositional(text)])) as Record<DashboardStatement, Compiled>;
    this.#pool = createPool({ ...resolved, poolSize: DASHBOARD_READER_CONNECTIONS }, "corral-dashboard", true);
  }

  async check(): Promise<void> {
    const rows = await this.#read("open the ledger", async (client) => {
      const found = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'meta'", [this.schema]);
      if (found.rows[0]?.n !== 1) return null;
      return (await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${quoteIdent(this.schema)}.meta`)).rows;
    });
    const meta = new Map((rows ?? []).map((row) => [row.key, row.value]));
    const at = `${this.where} (schema "${this.schema}")`;
    if (meta.get("owner") !== "corral-ledger") throw new NotALedgerError(at, rows === null ? "no corral ledger in that schema; pass the one hosts use with ?schema=<name>" : "that schema holds tables no corral made");
    const version = Number(meta.get("schema_version"));
    if (version !== PG_SCHEMA_VERSION) {
      throw new NotALedgerError(at, version > PG_SCHEMA_VERSION ? `its schema version ${version} is newer than this corral's ${PG_SCHEMA_VERSION}; upgrade corral` : `its schema version ${version} is older than ${PG_SCHEMA_VERSION}; a host or the CLI of this corral migrates it`);
    }
  }

  async #read<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      return await withClient(this.#pool, work);
    } catch (error) {
      throw describeError(this.where, what, error);
    }
  }

  #bound(client: pg.PoolClient | pg.Pool): DashboardQuery {
    return async (statement, params) => {
      const { text, names } = this.#statements[statement];
      return (await client.query<Row>(text, names.map((name) => params[name]))).rows;
    };
  }

  query: DashboardQuery = (statement, params) => this.#read("read the dashboard's data", (client) => this.#bound(client)(statement, params));

  snapshot<T>(work: (query: DashboardQuery) => Promise<T>): Promise<T> {
    return this.#read("read the dashboard's data", (client) => inSnapshot(client, () => work(this.#bound(client))));
  }

  async version(): Promise<number> {
    const rows = await this.#read("read the ledger's version", async (client) => (await client.query<{ v: number }>("SELECT hashtext(pg_current_snapshot()::text) AS v")).rows);
    return rows[0]?.v ?? 0;
  }

  encodeList(values: readonly string[]): unknown {
    return this.#encodeList(values);
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}
