/**
 * @module src/ledger/postgres/dashboard.test
 * PostgresDashboardReader on the real server (each test in a fresh schema):
 * the shared reader suite (dashboard-reader.case.ts), then what is its own:
 * schemas that are no ledger refused with nothing written, the strike
 * timeline filled when a version-2 schema is migrated, sessions that refuse
 * writes, and a ledger of a million calls read a page at a time.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { readMillionCalls, runDashboardReaderSuite } from "../dashboard-reader.case.js";
import { NotALedgerError } from "../errors.js";
import { Ledger } from "../ledger.js";
import { createPool, resolvePostgresOptions } from "./connection.js";
import { PostgresDashboardReader } from "./dashboard.js";
import { PG_SCHEMA_VERSION } from "./schema.js";
import { PostgresLedgerStore } from "./store.js";
import { MINUTE_MS, T0, makeCall, versionOf } from "../testing/fixtures.js";
import { SKIP_POSTGRES, adminQuery, postgresUrl, testSchemas } from "../testing/postgres.js";
import { V5_COLUMNS, V5_TABLES } from "../testing/upgrade.js";

const schemas = testSchemas("dash");
after(() => schemas.dropAll());

if (SKIP_POSTGRES !== false) {
  it("PostgresDashboardReader", { skip: SKIP_POSTGRES }, () => undefined);
} else {
  const url = postgresUrl();
  const withSchema = (schema: string) => `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`;
  const tablesOf = async (schema: string) =>
    (await adminQuery<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [schema])).map((row) => row.name);
  const notALedger = (pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof NotALedgerError, `NotALedgerError, not ${String(error)}`);
    assert.match(error.message, pattern);
    assert.doesNotMatch(error.message, /password/i);
    return true;
  };

  runDashboardReaderSuite("PostgresDashboardReader", () => {
    const schema = schemas.next();
    return { store: withSchema(schema), openReader: () => PostgresDashboardReader.open({ url, schema }) };
  });

  describe("PostgresDashboardReader on a shared server", { timeout: 120_000 }, () => {
    it("refuses an empty schema, another program's schema and a newer ledger, and writes nothing to them", async () => {
      const empty = schemas.next();
      await assert.rejects(PostgresDashboardReader.open({ url, schema: empty }), notALedger(/no corral ledger in that schema/));
      assert.deepEqual(await tablesOf(empty), []);
      const foreign = schemas.next();
      await adminQuery(`CREATE SCHEMA "${foreign}"; CREATE TABLE "${foreign}".meta (key TEXT, value TEXT); CREATE TABLE "${foreign}".users (id INT)`);
      await assert.rejects(PostgresDashboardReader.open({ url, schema: foreign }), notALedger(/holds tables no corral made/));
      assert.deepEqual(await tablesOf(foreign), ["meta", "users"]);
      const newer = schemas.next();
      await new Ledger({ store: withSchema(newer) }).close().then(async () => {
        const store = new PostgresLedgerStore({ url, schema: newer });
        await store.ready();
        await store.close();
      });
      await adminQuery(`UPDATE "${newer}".meta SET value = '${PG_SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
      await assert.rejects(PostgresDashboardReader.open({ url, schema: newer }), notALedger(/newer than this corral's/));
    });

    it("fills the strike timeline from the kept strikes when the store migrates a version-2 schema", async () => {
      const schema = schemas.next();
      const ledger = new Ledger({ store: withSchema(schema), policy: { strikes: 1_000 } });
      await ledger.record(makeCall({ outcome: "timeout", at: T0 }));
      await ledger.record(makeCall({ outcome: "crash", at: T0 + 30_000 }));
      await ledger.record(makeCall({ outcome: "crash", at: T0 + MINUTE_MS }));
      await ledger.close();
      // Make it what a corral of PostgreSQL schema 2 left behind.
      const v5 = [...V5_TABLES.map((table) => `DROP TABLE "${schema}".${table}`), `ALTER TABLE "${schema}".tools ${V5_COLUMNS.map((column) => `DROP COLUMN ${column}`).join(", ")}`];
      await adminQuery(`${v5.join("; ")}; DROP TABLE "${schema}".script_calls; DROP TABLE "${schema}".strike_minutes; UPDATE "${schema}".meta SET value = '2' WHERE key = 'schema_version'`);
      await assert.rejects(PostgresDashboardReader.open({ url, schema }), notALedger(new RegExp(`older than ${PG_SCHEMA_VERSION}; a host or the CLI of this corral migrates it`)));
      const store = new PostgresLedgerStore({ url, schema, createSchema: false });
      await store.ready();
      await store.close();
      const reader = await PostgresDashboardReader.open({ url, schema });
      try {
        const series = await reader.timelines({ to: T0 + 2 * MINUTE_MS, bucketMs: MINUTE_MS, buckets: 2, sources: null });
        assert.deepEqual(series.get(null), [2, 1]);
      } finally {
        await reader.close();
      }
    });

    it("reads through sessions that refuse writes", async () => {
      // The pool the reader makes (createPool with readOnly): a write on it is refused by the server.
      const schema = schemas.next();
      const pool = createPool(resolvePostgresOptions({ url, schema }), "corral-dashboard-test", true);
      try {
        await assert.rejects(pool.query(`CREATE SCHEMA "${schema}"`), (error: unknown) => (error as { code?: string }).code === "25006");
        assert.deepEqual((await pool.query("SHOW default_transaction_read_only")).rows, [{ default_transaction_read_only: "on" }]);
      } finally {
        await pool.end();
      }
      assert.deepEqual(await tablesOf(schema), []);
    });

    it("pages a ledger of a million calls over 20,000 sources", async () => {
      const schema = schemas.next();
      const store = new PostgresLedgerStore({ url, schema });
      await store.ready();
      await store.close();
      const s = `"${schema}"`;
      const sources = 20_000;
      // 50 calls per source (1,000,000 in all); source i has i % 10 strikes, one a minute back from T0.
      await adminQuery(`
        INSERT INTO ${s}.sources (source, state, last_version) SELECT 'agent:bulk-' || lpad(i::text, 5, '0'), 'active', '${versionOf("big")}' FROM generate_series(0, ${sources - 1}) AS i;
        INSERT INTO ${s}.tools SELECT 'agent:bulk-' || lpad(i::text, 5, '0'), 'run', 50, i % 10, jsonb_build_object('ok', 50 - i % 10, 'timeout', i % 10), 100, 50, 2, 1000, ${T0}, NULL, NULL, NULL,
          i % 10, '${versionOf("big")}', 50, i % 10, i % 10
          FROM generate_series(0, ${sources - 1}) AS i;
        INSERT INTO ${s}.strikes (source, tool, version, call_id, outcome, message, at)
          SELECT 'agent:bulk-' || lpad(i::text, 5, '0'), 'run', '${versionOf("big")}', 'c' || i || '-' || k, 'timeout', 'slow', ${T0} - k * ${MINUTE_MS}
          FROM generate_series(0, ${sources - 1}) AS i CROSS JOIN generate_series(0, 8) AS k WHERE k < i % 10;
        INSERT INTO ${s}.strike_minutes SELECT source, at, 1 FROM ${s}.strikes;
        ANALYZE ${s}.sources; ANALYZE ${s}.tools; ANALYZE ${s}.strike_minutes;`);
      const reader = await PostgresDashboardReader.open({ url, schema });
      try {
        await readMillionCalls(reader, sources, "PostgreSQL");
      } finally {
        await reader.close();
      }
    });
  });
}
