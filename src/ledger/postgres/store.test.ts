/**
 * @module src/ledger/postgres/store.test
 * PostgresLedgerStore: the shared store suite on a real server (each test
 * in a fresh schema), then what only a shared server asks for: the schema
 * made once by hosts that start together, a schema someone else owns, a
 * wrong database or user, rows edited by hand, and changes of state seen by
 * another store through NOTIFY.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CorralError } from "../../errors.js";
import { Ledger } from "../ledger.js";
import { PostgresLedgerStore } from "./store.js";
import { PG_SCHEMA_VERSION } from "./schema.js";
import { runStoreSuite } from "../store.case.js";
import { makeCall, T0 } from "../testing/fixtures.js";
import { SKIP_POSTGRES, adminQuery, postgresUrl, testSchemas } from "../testing/postgres.js";
import { V5_COLUMNS, V5_TABLES, assertUpgraded, recordBeforeUpgrade } from "../testing/upgrade.js";
import { quarantineByHand } from "../transitions.js";

const schemas = testSchemas("store");
after(() => schemas.dropAll());

function isUnavailable(pattern: RegExp, cause?: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CorralError, `a CorralError, not ${String(error)}`);
    assert.equal(error.code, "ledger_unavailable");
    assert.match(error.message, pattern);
    if (cause !== undefined) assert.equal(error.data.cause, cause);
    assert.doesNotMatch(error.message, /password/i);
    return true;
  };
}

if (SKIP_POSTGRES !== false) {
  it("PostgresLedgerStore", { skip: SKIP_POSTGRES }, () => undefined);
} else {
  const url = postgresUrl();
  runStoreSuite("PostgresLedgerStore", () => new PostgresLedgerStore({ url, schema: schemas.next() }));

  describe("PostgresLedgerStore on a shared server", { timeout: 120_000 }, () => {
    it("creates its schema on first use, once, when several hosts start at once", async () => {
      const schema = schemas.next();
      const stores = Array.from({ length: 6 }, () => new PostgresLedgerStore({ url, schema }));
      try {
        // Each one's first write races the others' schema creation.
        await Promise.all(stores.map((store, i) => store.recordCall(makeCall({ callId: `c${i}` }), { keepStrikes: 3, decide: () => null })));
        const listed = await (stores[0] as PostgresLedgerStore).listSources();
        assert.equal(listed[0]?.tools[0]?.totals.calls, 6);
        const meta = await adminQuery<{ key: string; value: string }>(`SELECT key, value FROM "${schema}".meta ORDER BY key`);
        assert.deepEqual(meta, [{ key: "owner", value: "corral-ledger" }, { key: "schema_version", value: String(PG_SCHEMA_VERSION) }]);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it("takes the schema from ?schema= in the URL, and a string store opens it", async () => {
      const schema = schemas.next();
      const ledger = new Ledger({ store: `${url}${url.includes("?") ? "&" : "?"}schema=${schema}` });
      try {
        await ledger.record(makeCall({ at: Date.now() }));
        const rows = await adminQuery<{ calls: number }>(`SELECT calls::int AS calls FROM "${schema}".tools`);
        assert.deepEqual(rows, [{ calls: 1 }]);
      } finally {
        await ledger.close();
      }
    });

    it("refuses a schema that holds someone else's tables, and writes nothing into it", async () => {
      const schema = schemas.next();
      await adminQuery(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".orders (id int)`);
      const store = new PostgresLedgerStore({ url, schema });
      try {
        await assert.rejects(store.readState("agent:a"), isUnavailable(/holds tables that are not a corral ledger \(orders\).*\?schema=/, "foreign_schema"));
        await assert.rejects(store.recordCall(makeCall(), { keepStrikes: 3, decide: () => null }), isUnavailable(/not a corral ledger/));
        const tables = await adminQuery<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1", [schema]);
        assert.deepEqual(tables.map((t) => t.name), ["orders"]);
      } finally {
        await store.close();
      }
    });

    it("lets a host of schema 4, still running in a rolling upgrade, count its strikes in a migrated schema", async () => {
      const schema = schemas.next();
      const ledger = new Ledger({ store: new PostgresLedgerStore({ url, schema }), policy: { strikes: 1_000 } });
      try {
        await ledger.record(makeCall({ source: "agent:r", tool: "t", outcome: "ok" }));
        await ledger.record(makeCall({ source: "agent:r", tool: "t", outcome: "tool_error", message: "new host" }));
        // What a host of schema 4 sends to count a strike (postgres/sql.ts before version 5): 13 positional values,
        // which leave the columns of version 5 alone. Twice: more strikes than the errors counted.
        const oldStrike = `INSERT INTO "${schema}".tools AS t VALUES ('agent:r', 't', 1, 1, '{"crash": 1}'::jsonb, 1, 1, 1, 1, 1, 1, 'crash', 'old host')
          ON CONFLICT (source, tool) DO UPDATE SET calls = t.calls + excluded.calls, strikes = t.strikes + excluded.strikes,
            outcomes = jsonb_set(t.outcomes, ARRAY['crash'], to_jsonb(coalesce((t.outcomes ->> 'crash')::bigint, 0) + 1))`;
        await adminQuery(oldStrike);
        await adminQuery(oldStrike);
        const tool = (await ledger.sourceReport("agent:r"))?.tools[0];
        assert.deepEqual([tool?.totals.calls, tool?.totals.strikes, tool?.totals.outcomes.crash], [4, 2, 2], "the older host's strikes are kept");
        assert.equal(tool?.errorRate, 3 / 4, "error rates come from the outcome counts every version keeps");
      } finally {
        await ledger.close();
      }
    });

    for (const from of [3, 4]) {
      it(`migrates a version-${from} schema with records in it: they stay as they were; scripts' calls, calls per version and tools' errors count from then on`, async () => {
        const schema = schemas.next();
        const ledger = new Ledger({ store: new PostgresLedgerStore({ url, schema }), policy: { strikes: 1_000 } });
        const before = await recordBeforeUpgrade(ledger);
        await ledger.close();
        // Make it what a corral of that PostgreSQL schema left behind.
        assert.deepEqual(await adminQuery(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`), [{ value: String(PG_SCHEMA_VERSION) }]);
        const older = [
          ...V5_TABLES.map((table) => `DROP TABLE "${schema}".${table}`),
          `ALTER TABLE "${schema}".tools ${V5_COLUMNS.map((column) => `DROP COLUMN ${column}`).join(", ")}`,
          ...(from === 3 ? [`DROP TABLE "${schema}".script_calls`] : []),
          `UPDATE "${schema}".meta SET value = '${from}' WHERE key = 'schema_version'`,
        ];
        await adminQuery(older.join("; "));

        // The CLI's kind of store (createSchema: false) migrates it as a host's does.
        const migrated = new Ledger({ store: new PostgresLedgerStore({ url, schema, createSchema: false }), policy: { strikes: 1_000 } });
        try {
          await assertUpgraded(migrated, before, async () => {
            const [row] = await adminQuery<{ errors: string }>(`SELECT errors FROM "${schema}".tools WHERE source = 'agent:m' AND tool = 'add'`);
            return Number(row?.errors);
          });
        } finally {
          await migrated.close();
        }
        assert.deepEqual(await adminQuery(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`), [{ value: String(PG_SCHEMA_VERSION) }]);
      });
    }

    it("counts scripts' calls exactly when several hosts record the same counters at once", async () => {
      const schema = schemas.next();
      const stores = Array.from({ length: 4 }, () => new PostgresLedgerStore({ url, schema }));
      try {
        await (stores[0] as PostgresLedgerStore).ready();
        // Each host: 60 records of one counter (one run per batch) and 15 strikes of another, interleaved with other scripts' calls.
        await Promise.all(stores.map((store, host) => Promise.all(Array.from({ length: 90 }, (_, i) => {
          const via = i % 6 === 5 ? `code:other-${host}` : "code:shared";
          const outcome = i % 6 === 4 ? "timeout" : "ok";
          return store.recordCall(makeCall({ source: "agent:m", tool: "add", outcome, via, callId: `h${host}-${i}`, at: T0 + i }), { keepStrikes: 3, decide: () => null, behind: true });
        }))));
        const shared = await (stores[1] as PostgresLedgerStore).readScriptTools("code:shared", 10);
        assert.deepEqual(shared.counts.map((c) => [c.outcome, c.calls, c.strikes]).sort(), [["ok", 240, 0], ["timeout", 60, 60]]);
        const callers = await (stores[2] as PostgresLedgerStore).readScriptCallers("agent:m", 10);
        assert.equal(callers.total, 5);
        assert.deepEqual(callers.rows[0], { script: "code:shared", calls: 300, strikes: 60, lastAt: T0 + 88 });
        assert.deepEqual(callers.rows.slice(1).map((row) => row.calls), [15, 15, 15, 15]);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it("refuses a schema a newer corral made", async () => {
      const schema = schemas.next();
      const first = new PostgresLedgerStore({ url, schema });
      await first.readState("agent:a");
      await first.close();
      await adminQuery(`UPDATE "${schema}".meta SET value = '99' WHERE key = 'schema_version'`);
      const store = new PostgresLedgerStore({ url, schema });
      try {
        await assert.rejects(store.listSources(), isUnavailable(/version 99, newer than this corral's/, "newer_schema"));
      } finally {
        await store.close();
      }
    });

    for (const [what, mutate, code] of [
      ["a database that does not exist", (u: URL) => void (u.pathname = "/no_such_database_here"), "3D000"],
      ["a user that does not exist", (u: URL) => void (u.username = "no_such_user_here"), "28000"],
    ] as const) {
      it(`fails at once, with the reason, on ${what}`, async () => {
        const bad = new URL(url);
        mutate(bad);
        bad.password = "secret-not-shown";
        const store = new PostgresLedgerStore({ url: bad.toString(), schema: schemas.next() });
        try {
          const started = performance.now();
          await assert.rejects(store.readState("agent:a"), (error: unknown) => {
            assert.ok(error instanceof CorralError && error.code === "ledger_unavailable");
            assert.ok([code, "28P01"].includes(String(error.data.cause)), `cause ${String(error.data.cause)}`);
            assert.doesNotMatch(error.message, /secret-not-shown/);
            return true;
          });
          await assert.rejects(store.recordCall(makeCall(), { keepStrikes: 3, decide: () => null }), (error: unknown) => error instanceof CorralError && error.code === "ledger_unavailable");
          assert.ok(performance.now() - started < 5_000, "no retry loop for a wrong URL");
        } finally {
          await store.close();
        }
      });
    }

    it("reads a row edited by hand into an impossible state as an error that names the repair; the database refuses worse edits", async () => {
      const schema = schemas.next();
      const store = new PostgresLedgerStore({ url, schema });
      try {
        await store.recordCall(makeCall(), { keepStrikes: 3, decide: () => null });
        await assert.rejects(
          adminQuery(`UPDATE "${schema}".sources SET state = 'quarantined' WHERE source = 'agent:alpha'`),
          (error: { code?: string }) => error.code === "23514",
          "a quarantine without its start, reason and actor violates a CHECK",
        );
        await assert.rejects(adminQuery(`UPDATE "${schema}".tools SET strikes = calls + 1`), (error: { code?: string }) => error.code === "23514");
        await adminQuery(`INSERT INTO "${schema}".sources (source, state, since) VALUES ('not a source id', 'active', 1)`);
        await assert.rejects(store.listSources(), isUnavailable(/impossible state; see docs\/errors\.md/, "unreadable_row"));
        await adminQuery(`DELETE FROM "${schema}".sources WHERE source = 'not a source id'`);
        assert.equal((await store.listSources()).length, 1, "the repair docs/errors.md gives works");
      } finally {
        await store.close();
      }
    });

    it("tells another store of a change of state through NOTIFY, within milliseconds", async (t) => {
      const schema = schemas.next();
      const writer = new PostgresLedgerStore({ url, schema });
      const reader = new PostgresLedgerStore({ url, schema });
      try {
        await reader.readState("agent:alpha");
        reader.changesElsewhere();
        // The listener connects in the background; once live, the counter holds still.
        for (let i = 0; i < 200 && reader.changesElsewhere() !== reader.changesElsewhere(); i++) await sleep(10);
        const before = reader.changesElsewhere();
        assert.equal(reader.changesElsewhere(), before, "no change, no new number");
        await writer.recordCall(makeCall({ outcome: "ok" }), { keepStrikes: 3, decide: () => null });
        await sleep(50);
        assert.equal(reader.changesElsewhere(), before, "a count without a change of state is not announced");
        const delays: number[] = [];
        for (let i = 0; i < 5; i++) {
          const seen = reader.changesElsewhere();
          await writer.transition("agent:alpha", (state) => quarantineByHand(state, { reason: `r${i}`, until: null, actor: "ops" }, T0));
          const committed = performance.now();
          while (reader.changesElsewhere() === seen) await sleep(0.2);
          delays.push(performance.now() - committed);
        }
        t.diagnostic(`NOTIFY reached the other store ${delays.map((d) => d.toFixed(2)).join(", ")} ms after the commit returned`);
        const own = reader.changesElsewhere();
        await reader.transition("agent:alpha", (state) => quarantineByHand(state, { reason: "own", until: null, actor: "ops" }, T0));
        await sleep(50);
        assert.equal(reader.changesElsewhere(), own, "a store's own change is not news to it");
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    });
  });
}
