/**
 * @module src/capabilities/postgres-capability-store
 * The capability store beside a PostgreSQL ledger: three tables in the
 * ledger's own schema, so every host of a fleet sees one `ctx.state` per
 * source and one record of capability use, and both survive restarts. As
 * with SQLite, the tables are independent of the ledger's schema version:
 * the first use brings the ledger's schema up (or refuses a schema that is
 * not a ledger's) and then adds them if missing, under the ledger's own
 * advisory lock so hosts that start together do not race.
 *
 * A quota check and its write are one transaction holding a lock per source,
 * so two hosts cannot both fit into the last of a source's quota.
 */
import type pg from "pg";
import { CorralError } from "../errors.js";
import { createPool, resolvePostgresOptions, type ResolvedPostgresOptions, createTablesBeside, quoteIdent } from "../ledger/postgres/index.js";
import { counterFromRow, entryBytes, LATEST_USES_KEPT, useFromRow, type CapabilityCounter, type CapabilityCounterRow, type CapabilityStore, type CapabilityUse, type CapabilityUseRow, type StateLimits, type StateUsage } from "./capability-store.js";

function schemaSql(s: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${s}.capability_state (
  source     TEXT NOT NULL,
  key        TEXT NOT NULL COLLATE "C",
  value      TEXT NOT NULL,
  bytes      BIGINT NOT NULL CHECK (bytes >= 0),
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (source, key)
);
CREATE TABLE IF NOT EXISTS ${s}.capability_counters (
  source      TEXT NOT NULL,
  tool        TEXT NOT NULL COLLATE "C",
  effect      TEXT NOT NULL COLLATE "C",
  outcome     TEXT NOT NULL COLLATE "C",
  uses        BIGINT NOT NULL CHECK (uses >= 0),
  bytes       BIGINT NOT NULL CHECK (bytes >= 0),
  last_target TEXT NOT NULL,
  last_at     BIGINT NOT NULL,
  PRIMARY KEY (source, tool, effect, outcome)
);
CREATE TABLE IF NOT EXISTS ${s}.capability_uses (
  id        BIGSERIAL PRIMARY KEY,
  source    TEXT NOT NULL,
  tool      TEXT NOT NULL,
  call_id   TEXT NOT NULL,
  effect    TEXT NOT NULL,
  operation TEXT NOT NULL,
  target    TEXT NOT NULL,
  bytes     BIGINT NOT NULL,
  outcome   TEXT NOT NULL,
  message   TEXT,
  at        BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS capability_uses_by_source ON ${s}.capability_uses (source, id);
`;
}

export class PostgresCapabilityStore implements CapabilityStore {
  readonly #options: ResolvedPostgresOptions;
  readonly #pool: pg.Pool;
  readonly #s: string;
  #ready: Promise<void> | undefined;
  #closed = false;

  /** `url` is the ledger's (its `?schema=` too); the store keeps a small pool of its own. */
  constructor(url: string, options: { schema?: string; poolSize?: number } = {}) {
    this.#options = resolvePostgresOptions({ url, poolSize: options.poolSize ?? 2, ...(options.schema === undefined ? {} : { schema: options.schema }) });
    this.#s = quoteIdent(this.#options.schema);
    this.#pool = createPool(this.#options, "corral-capabilities");
  }

  get alive(): boolean {
    return !this.#closed;
  }

  /** The tables, made once per store (a failed attempt is tried again by the next use). */
  async #tables(): Promise<void> {
    if (this.#closed) throw new CorralError("ledger_closed", "the capability store was used after close(); create a new host");
    this.#ready ??= createTablesBeside(this.#pool, this.#options.schema, this.#options.where, schemaSql(this.#s)).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
  }

  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    await this.#tables();
    return (await this.#pool.query<R>(text, values)).rows;
  }

  /** `work` in one transaction on one connection. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.#tables();
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async stateGet(source: string, key: string): Promise<string | undefined> {
    const rows = await this.#query<{ value: string }>(`SELECT value FROM ${this.#s}.capability_state WHERE source = $1 AND key = $2`, [source, key]);
    return rows[0]?.value;
  }

  async stateList(source: string, prefix: string, limit: number): Promise<string[]> {
    const rows = await this.#query<{ key: string }>(
      `SELECT key FROM ${this.#s}.capability_state WHERE source = $1 AND starts_with(key, $2) ORDER BY key LIMIT $3`,
      [source, prefix, limit],
    );
    return rows.map((row) => row.key);
  }

  async stateSet(source: string, key: string, json: string, limits: StateLimits): Promise<{ ok: true } | { ok: false; usage: StateUsage }> {
    const bytes = entryBytes(key, json);
    return this.#transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`corral-state:${this.#options.schema}:${source}`]);
      const usage = await this.#usage(client, source);
      const previous = (await client.query<{ bytes: number }>(`SELECT bytes FROM ${this.#s}.capability_state WHERE source = $1 AND key = $2`, [source, key])).rows[0];
      const after = { keys: usage.keys + (previous === undefined ? 1 : 0), bytes: usage.bytes - (previous?.bytes ?? 0) + bytes };
      if (after.keys > limits.maxKeys || after.bytes > limits.quotaBytes) return { ok: false as const, usage: after };
      await client.query(
        `INSERT INTO ${this.#s}.capability_state (source, key, value, bytes, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (source, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes, updated_at = excluded.updated_at`,
        [source, key, json, bytes, Date.now()],
      );
      return { ok: true as const };
    });
  }

  async stateDelete(source: string, key: string): Promise<boolean> {
    await this.#tables();
    const result = await this.#pool.query(`DELETE FROM ${this.#s}.capability_state WHERE source = $1 AND key = $2`, [source, key]);
    return (result.rowCount ?? 0) > 0;
  }

  async stateUsage(source: string): Promise<StateUsage> {
    await this.#tables();
    return this.#usage(this.#pool, source);
  }

  async #usage(on: pg.Pool | pg.PoolClient, source: string): Promise<StateUsage> {
    const row = (await on.query<{ keys: number; bytes: number | null }>(`SELECT count(*)::int AS keys, sum(bytes)::bigint AS bytes FROM ${this.#s}.capability_state WHERE source = $1`, [source])).rows[0];
    return { keys: row?.keys ?? 0, bytes: row?.bytes ?? 0 };
  }

  async recordUse(use: CapabilityUse): Promise<void> {
    await this.#transaction(async (client) => {
      await client.query(
        `INSERT INTO ${this.#s}.capability_counters (source, tool, effect, outcome, uses, bytes, last_target, last_at) VALUES ($1, $2, $3, $4, 1, $5, $6, $7)
         ON CONFLICT (source, tool, effect, outcome) DO UPDATE SET uses = ${this.#s}.capability_counters.uses + 1,
           bytes = ${this.#s}.capability_counters.bytes + excluded.bytes, last_target = excluded.last_target, last_at = excluded.last_at`,
        [use.source, use.tool, use.effect, use.outcome, use.bytes, use.target, use.at],
      );
      await client.query(
        `INSERT INTO ${this.#s}.capability_uses (source, tool, call_id, effect, operation, target, bytes, outcome, message, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [use.source, use.tool, use.callId, use.effect, use.operation, use.target, use.bytes, use.outcome, use.message ?? null, use.at],
      );
      await client.query(
        `DELETE FROM ${this.#s}.capability_uses WHERE source = $1 AND id <= (SELECT id FROM ${this.#s}.capability_uses WHERE source = $1 ORDER BY id DESC LIMIT 1 OFFSET ${LATEST_USES_KEPT})`,
        [use.source],
      );
    });
  }

  async readUses(source: string, latest: number): Promise<{ counters: CapabilityCounter[]; latest: CapabilityUse[] }> {
    const counters = await this.#query<CapabilityCounterRow>(
      `SELECT tool, effect, outcome, uses, bytes, last_target, last_at FROM ${this.#s}.capability_counters WHERE source = $1 ORDER BY tool, effect, outcome`,
      [source],
    );
    const uses = await this.#query<CapabilityUseRow>(`SELECT * FROM ${this.#s}.capability_uses WHERE source = $1 ORDER BY id DESC LIMIT $2`, [source, latest]);
    return { counters: counters.map(counterFromRow), latest: uses.map(useFromRow) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
