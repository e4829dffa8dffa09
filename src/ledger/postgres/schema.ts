/**
 * @module src/ledger/postgres/schema
 * The ledger's PostgreSQL schema and its migration. The tables live in one
 * schema of their own (`corral` unless the URL names another), and its
 * `meta` table holds the schema's version and a mark that says a corral
 * ledger made it: a schema that holds other tables and no such mark is
 * refused, never written into.
 *
 * Creation and migration run in one transaction under an advisory lock keyed
 * by the schema's name, so hosts that start at once on an empty database all
 * come up: the first creates the tables, the others wait for it and find
 * them. A schema from a newer corral is refused rather than misread.
 *
 * The same tables as SQLite's (sqlite/schema.ts), with CHECK constraints
 * that keep a hand-edited row from being an impossible state: a quarantine
 * without its start, reason or actor, a negative count.
 */
import type { Pool, PoolClient } from "pg";
import { postgresDialect } from "../sql/dashboard-sql.js";
import { LedgerUnavailableError } from "../errors.js";
import { scriptCallsTable } from "../sql/script-calls-sql.js";
import { toolCountColumns, toolCountTables } from "../sql/tool-counts-sql.js";

export const PG_SCHEMA_VERSION = 5;
/** The mark in `meta` that says this schema is a corral ledger. */
const OWNER = "corral-ledger";

function schemaV1(schema: string): string {
  const s = quoteIdent(schema);
  return `
CREATE TABLE ${s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE ${s}.sources (
  source       TEXT PRIMARY KEY,
  state        TEXT NOT NULL CHECK (state IN ('active', 'quarantined')),
  since        BIGINT CHECK (since >= 0),
  until        BIGINT CHECK (until >= 0),
  reason       TEXT,
  actor        TEXT,
  last_version TEXT,
  CHECK (state = 'active' OR (since IS NOT NULL AND reason IS NOT NULL AND actor IS NOT NULL))
);

CREATE TABLE ${s}.versions (
  source   TEXT NOT NULL,
  version  TEXT NOT NULL,
  first_at BIGINT NOT NULL,
  PRIMARY KEY (source, version)
);

CREATE TABLE ${s}.tools (
  source              TEXT NOT NULL,
  tool                TEXT NOT NULL,
  calls               BIGINT NOT NULL CHECK (calls >= 0),
  strikes             BIGINT NOT NULL CHECK (strikes >= 0 AND strikes <= calls),
  outcomes            JSONB NOT NULL,
  total_wall_ms       DOUBLE PRECISION NOT NULL CHECK (total_wall_ms >= 0),
  total_cpu_ms        DOUBLE PRECISION NOT NULL CHECK (total_cpu_ms >= 0),
  last_wall_ms        DOUBLE PRECISION NOT NULL CHECK (last_wall_ms >= 0),
  max_heap_bytes      BIGINT NOT NULL CHECK (max_heap_bytes >= 0),
  last_call_at        BIGINT NOT NULL,
  last_strike_at      BIGINT,
  last_strike_outcome TEXT,
  last_strike_message TEXT,
  PRIMARY KEY (source, tool)
);

CREATE TABLE ${s}.strikes (
  id      BIGSERIAL PRIMARY KEY,
  source  TEXT NOT NULL,
  tool    TEXT NOT NULL,
  version TEXT NOT NULL,
  call_id TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('timeout', 'memory', 'crash')),
  message TEXT NOT NULL,
  at      BIGINT NOT NULL
);
CREATE INDEX strikes_by_source ON ${s}.strikes (source, id);

CREATE TABLE ${s}.events (
  id     BIGSERIAL PRIMARY KEY,
  at     BIGINT NOT NULL,
  source TEXT NOT NULL,
  kind   TEXT NOT NULL CHECK (kind IN ('quarantine', 'release', 'expire', 'manual_quarantine')),
  reason TEXT NOT NULL,
  until  BIGINT,
  actor  TEXT NOT NULL
);
CREATE INDEX events_by_source ON ${s}.events (source, id);

-- One row per committed batch of records: a batch retried after its connection
-- died at COMMIT is found here and not counted twice. Rows older than a day go.
CREATE TABLE ${s}.batches (id UUID PRIMARY KEY, at BIGINT NOT NULL);
CREATE INDEX batches_by_at ON ${s}.batches (at);

INSERT INTO ${s}.meta VALUES ('owner', '${OWNER}'), ('schema_version', '1');
`;
}

/**
 * The steps from version n - 1 to n, for n from 2; each runs once, in the
 * transaction that holds the schema's advisory lock, and sets the version.
 */
function upgrades(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    // 2: who a strike's call was made for (`mcp:<session>`, `model:<uuid>`); NULL for the program's own calls.
    `ALTER TABLE ${s}.strikes ADD COLUMN caller TEXT`,
    // 3: strikes per source and minute, for the dashboard's timelines (the strikes table keeps only each
    // source's last few). Written in each strike's transaction (postgres/sql.ts, keepStrike) under the
    // source's row lock, kept STRIKE_MINUTES_KEPT_MS; filled here from the strikes still kept. The index
    // covers the count of every source over a range of minutes, as SQLite's does.
    `CREATE TABLE ${s}.strike_minutes (
       source TEXT NOT NULL,
       minute BIGINT NOT NULL CHECK (minute % 60000 = 0),
       n      BIGINT NOT NULL CHECK (n > 0),
       PRIMARY KEY (source, minute)
     );
     CREATE INDEX strike_minutes_by_minute ON ${s}.strike_minutes (minute) INCLUDE (n);
     INSERT INTO ${s}.strike_minutes (source, minute, n) SELECT source, at - at % 60000, count(*) FROM ${s}.strikes GROUP BY 1, 2`,
    // 4: which tools Code Mode scripts called (script-calls.ts): a counter per (script source, tool source,
    // tool, outcome kind), counted from each record's `via` in the statement that counts its run
    // (postgres/sql.ts, countRun), under the tool source's row lock. The index answers "which scripts
    // called this source's tools". Empty at migration: older records never named a script.
    `${scriptCallsTable(postgresDialect(s), "BIGINT")};
     CREATE INDEX script_calls_by_source ON ${s}.script_calls (source, via)`,
    // 5: every outcome kind seen per tool and version (sql/tool-counts-sql.ts): a tool's non-ok calls
    // (`errors`, filled here from its outcome counts), its counts per version (the current one in its row,
    // earlier ones folded into tool_versions by the statement that counts a run, under the source's row
    // lock), and its latest non-ok calls with their messages. tool_versions starts empty: older calls
    // were counted with no version. No CHECK ties errors to strikes: a host of schema 4 still running
    // during a fleet's rolling upgrade counts a strike without an error (its positional INSERT leaves the
    // new columns at their defaults), and must not be refused for it; the reports' error rates come from
    // the outcome counts, which every version keeps.
    `ALTER TABLE ${s}.tools ${toolCountColumns("BIGINT").map((column) => `ADD COLUMN ${column}`).join(", ")};
     UPDATE ${s}.tools SET errors = calls - coalesce((outcomes ->> 'ok')::bigint, 0);
     ALTER TABLE ${s}.tools ADD CHECK (errors <= calls AND cur_strikes <= cur_errors AND cur_errors <= cur_calls);
     ${toolCountTables(postgresDialect(s), "BIGINT", "BIGSERIAL PRIMARY KEY", "")}`,
  ];
}

/** A schema name is a plain identifier: letters, digits and '_', so it can be quoted without escapes. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

export function quoteIdent(name: string): string {
  if (!SCHEMA_NAME.test(name)) throw new Error(`corral: ${name} is not a schema name this store accepts`);
  return `"${name}"`;
}

/**
 * Brings `schema` to PG_SCHEMA_VERSION on `client` (not in a transaction).
 * `where` names the database in errors, without its password; `create`
 * false refuses an empty schema instead of creating the tables.
 */
export async function migratePostgres(client: PoolClient, schema: string, where: string, create = true): Promise<void> {
  await client.query("BEGIN");
  try {
    // Held to the end of this transaction: concurrent hosts create the schema one at a time.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`corral-ledger:${schema}`]);
    const tables = await client.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1", [schema]);
    const names = new Set(tables.rows.map((row) => row.name));
    if (names.size === 0 && !create) {
      throw new LedgerUnavailableError(`there is no corral ledger in the schema "${schema}" of ${where}; a host creates it when it starts, or pass the schema it uses with ?schema=<name>`, { where, schema, cause: "no_ledger" });
    }
    let version = 1;
    if (names.size === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query(schemaV1(schema));
    } else {
      const meta = names.has("meta") ? await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${quoteIdent(schema)}.meta`) : { rows: [] };
      const values = new Map(meta.rows.map((row) => [row.key, row.value]));
      if (values.get("owner") !== OWNER) {
        const some = [...names].sort().slice(0, 5).join(", ");
        throw new LedgerUnavailableError(
          `the schema "${schema}" of ${where} holds tables that are not a corral ledger (${some}); pass another schema with ?schema=<name> in the ledger URL`,
          { where, schema, cause: "foreign_schema" },
        );
      }
      version = Number(values.get("schema_version"));
      if (!Number.isInteger(version) || version < 1 || version > PG_SCHEMA_VERSION) {
        throw new LedgerUnavailableError(
          `the ledger schema "${schema}" of ${where} has version ${values.get("schema_version")}, ${version > PG_SCHEMA_VERSION ? `newer than this corral's ${PG_SCHEMA_VERSION}` : `which no corral wrote (this one knows 1 to ${PG_SCHEMA_VERSION})`}; upgrade corral or use another schema`,
          { where, schema, version, cause: "newer_schema" },
        );
      }
    }
    const steps = upgrades(schema);
    for (; version < PG_SCHEMA_VERSION; version++) await client.query(steps[version - 1] as string);
    await client.query(`UPDATE ${quoteIdent(schema)}.meta SET value = $1 WHERE key = 'schema_version'`, [String(PG_SCHEMA_VERSION)]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * Tables that live beside the ledger in its schema (the capability store's,
 * the tool library's): the ledger's schema brought up first (or refused, as
 * migratePostgres says; `create` false refuses an empty one), then `ddl`
 * (CREATE … IF NOT EXISTS) under the ledger's own advisory lock, so hosts
 * starting together do not race.
 */
export async function createTablesBeside(pool: Pool, schema: string, where: string, ddl: string, create = true): Promise<void> {
  const client = await pool.connect();
  try {
    await migratePostgres(client, schema, where, create);
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`corral-ledger:${schema}`]);
    await client.query(ddl);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
