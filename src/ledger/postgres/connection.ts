/**
 * @module src/ledger/postgres/connection
 * How the PostgreSQL store reaches its server: the options (one zod schema,
 * defaults beside it), the pool built from them, and the one function that
 * sorts a driver's error into what the store does about it:
 *
 * - `outage`: the server cannot be reached or dropped the connection (down,
 *   restarting, pg_terminate_backend, a network cut). Records wait in the
 *   store's buffer and the store retries.
 * - `busy`: a lock held by another session outlasted lock_timeout, or a
 *   statement outlasted statement_timeout. Treated as an outage: the work is
 *   retried later, never dropped.
 * - `retry`: a deadlock or serialization failure; the transaction is run
 *   again at once.
 * - `config`: a wrong password, user or database, a missing privilege, a
 *   schema that is not a ledger: retrying cannot help, every use fails with
 *   the reason.
 */
import pg from "pg";
import { z } from "zod";
import { CorralError, describeIssues } from "../../errors.js";
import { LedgerUnavailableError } from "../errors.js";
import { SCHEMA_NAME } from "./schema.js";
import { POSTGRES_IDLE_CONNECTION_MS } from "../../../sandbox/shared/tuning.js";

export const POSTGRES_URL = /^postgres(ql)?:\/\//;

export const POSTGRES_STORE_DEFAULTS = {
  /** The schema the ledger's tables live in; a `?schema=` in the URL sets it too. @default "corral" */
  schema: "corral",
  /** Connections the store may hold besides its listener. @default 4 */
  poolSize: 4,
  /** How long opening a connection may take before it counts as an outage. @default 5000 */
  connectTimeoutMs: 5_000,
  /** How long a statement waits for another session's lock (lock_timeout), as SQLite's busyTimeoutMs. @default 5000 */
  lockTimeoutMs: 5_000,
  /** Any statement's limit (statement_timeout). @default 15000 */
  statementTimeoutMs: 15_000,
  /** Records kept in memory while the server is unreachable; past this, record() rejects (and the host logs the call). @default 10000 */
  maxBufferedRecords: 10_000,
  /** How often an unreachable server is tried again. @default 500 */
  retryMs: 500,
  /** Create the schema when it is empty; false (the CLI's operator commands) refuses an empty one instead. @default true */
  createSchema: true,
} as const;

export const PostgresStoreOptions = z.strictObject({
  url: z.string().regex(POSTGRES_URL, "a PostgreSQL URL starts with postgres:// or postgresql://"),
  schema: z.string().regex(SCHEMA_NAME, "a schema name is 1-48 lower-case letters, digits or '_', not starting with a digit").optional(),
  poolSize: z.number().int().min(1).max(64).optional(),
  connectTimeoutMs: z.number().int().min(100).max(600_000).optional(),
  lockTimeoutMs: z.number().int().min(1).max(600_000).optional(),
  statementTimeoutMs: z.number().int().min(100).max(3_600_000).optional(),
  maxBufferedRecords: z.number().int().min(0).max(10_000_000).optional(),
  retryMs: z.number().int().min(10).max(60_000).optional(),
  createSchema: z.boolean().optional(),
});
export type PostgresStoreOptions = z.input<typeof PostgresStoreOptions>;
export type ResolvedPostgresOptions = Required<Omit<PostgresStoreOptions, "url">> & { url: string; where: string };

export function resolvePostgresOptions(options: unknown): ResolvedPostgresOptions {
  const parsed = PostgresStoreOptions.safeParse(options);
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `PostgresLedgerStore options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  let url: URL;
  try {
    url = new URL(parsed.data.url);
  } catch {
    throw new CorralError("invalid_options", "the ledger URL is not a URL; write it as postgres://user:password@host:5432/database");
  }
  // `schema` is corral's, not libpq's: taken out before pg sees the URL.
  const fromUrl = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  const schema = parsed.data.schema ?? fromUrl ?? POSTGRES_STORE_DEFAULTS.schema;
  if (!SCHEMA_NAME.test(schema)) throw new CorralError("invalid_options", `the ledger schema "${schema}" is not 1-48 lower-case letters, digits or '_'; pass another with ?schema=<name>`);
  return { ...POSTGRES_STORE_DEFAULTS, ...parsed.data, schema, url: url.toString(), where: describeUrl(url) };
}

/** The URL as errors and logs show it: never with its password. */
function describeUrl(url: URL): string {
  const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
  return `postgres://${user}${url.host}${url.pathname}`;
}

/** BIGINT columns hold ms times and counts, all far below 2^53: read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => (oid === 20 && format !== "binary" ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

export function connectionConfig(options: ResolvedPostgresOptions, name: string): pg.ClientConfig {
  return {
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    lock_timeout: options.lockTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    // A network that goes silent answers nothing, not even statement_timeout: the client gives up a second later.
    query_timeout: options.statementTimeoutMs + 1_000,
    // And the server ends a session left in a transaction that long, so its row locks do not outlive the cut.
    idle_in_transaction_session_timeout: options.statementTimeoutMs,
    // A host's connections carry its name, so an operator (or a test) can find them in pg_stat_activity.
    application_name: name,
    keepAlive: true,
    types,
  };
}

/** `readOnly`: every session refuses writes (default_transaction_read_only), as a reader that must never write wants. */
export function createPool(options: ResolvedPostgresOptions, name: string, readOnly = false): pg.Pool {
  const config: pg.PoolConfig = { ...connectionConfig(options, name), max: options.poolSize, idleTimeoutMillis: POSTGRES_IDLE_CONNECTION_MS };
  if (readOnly) config.options = "-c default_transaction_read_only=on";
  const pool = new pg.Pool(config);
  // An idle connection the server drops emits here; without a listener the process would die.
  // The next query on the pool opens a new connection, or fails and is sorted by classify().
  pool.on("error", () => undefined);
  // A connection that dies while checked out emits on its client too; its query rejects, and that is what counts.
  pool.on("connect", (client) => void client.on("error", () => undefined));
  return pool;
}

export type ErrorClass = "outage" | "busy" | "retry" | "config";

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);

export function classify(error: unknown): ErrorClass {
  // Already sorted (the store's own errors, passed on from an earlier attempt).
  if (error instanceof CorralError) return error.data.outage === true ? "outage" : "config";
  const cause = error as { code?: unknown; message?: unknown };
  const code = typeof cause.code === "string" ? cause.code : "";
  const message = typeof cause.message === "string" ? cause.message : "";
  if (code === "40P01" || code === "40001") return "retry";
  if (code === "55P03" || code === "57014") return "busy";
  // 08: connection exception; 57P01-03: the server shuts down, crashed, or is starting.
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || NETWORK_CODES.has(code)) return "outage";
  if (code === "" && /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|not queryable|connection.*closed/i.test(message)) return "outage";
  return "config";
}

/** The SQLSTATE or the node error code, for LedgerUnavailableError's data.cause. */
export function errorCode(error: unknown): string {
  const cause = error as { code?: unknown; name?: unknown };
  if (typeof cause.code === "string") return cause.code;
  return cause.name === "ZodError" ? "unreadable_row" : "unknown";
}

/** Tries of one transaction that met a deadlock or a serialization failure. */
const ATTEMPTS = 4;

/**
 * Whether to try again after `error` on attempt `attempt`: after a deadlock,
 * a few times; after a connection that died under the work (the server
 * ended it: every idle one in the pool may be as dead), once per connection
 * the pool may hold, each on another; never when no connection could be
 * opened at all (the server is unreachable).
 */
function tryAgain(pool: pg.Pool, error: unknown, attempt: number, connected: boolean): boolean {
  const kind = classify(error);
  if (kind === "retry") return attempt < ATTEMPTS;
  return kind === "outage" && connected && attempt <= pool.options.max;
}

/** Runs `work` in a transaction on a pooled connection, again as tryAgain() says. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      client.release();
      return result;
    } catch (error) {
      if (client !== undefined) {
        // A connection that failed is closed (the server rolls back), never handed out again nor asked to ROLLBACK.
        if (classify(error) === "outage") client.release(error as Error);
        else {
          await client.query("ROLLBACK").catch(() => undefined);
          client.release();
        }
      }
      if (!tryAgain(pool, error, attempt, client !== undefined)) throw error;
    }
  }
}

/** Runs a read on a pooled connection, again as tryAgain() says. */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      const result = await work(client);
      client.release();
      return result;
    } catch (error) {
      client.release(classify(error) === "outage" ? (error as Error) : undefined);
      if (!tryAgain(pool, error, attempt, true)) throw error;
    }
  }
}

/** A driver's error as the ledger's: what failed, where (no password), why, and what to do; `data.outage` when retrying may cure it. */
export function describeError(where: string, what: string, error: unknown): LedgerUnavailableError {
  if (error instanceof LedgerUnavailableError) return error;
  const cause = errorCode(error);
  const kind = classify(error);
  const hint = {
    outage: "the server is down or dropped the connection; corral keeps records in memory and retries",
    busy: "another session holds a lock (or a statement ran past statement_timeout); corral retries",
    retry: "a deadlock kept recurring; corral retries",
    config: cause === "unreadable_row" ? "a row holds an impossible state; see docs/errors.md (ledger_unavailable) for the repair" : "check the URL, the user's password and privileges, and the database name",
  }[kind];
  return new LedgerUnavailableError(`the ledger database ${where} could not ${what}: ${String((error as Error).message)}; ${hint}`, { where, cause, outage: kind !== "config" });
}
