/**
 * @module src/ledger/postgres/restart.test
 * A real server restart under a host's ledger: records go on being made
 * while the server stops and starts again; every one is counted once, the
 * quarantine they cause is decided once, and the outage is reported.
 *
 * Restarting a server others use would break their runs, so this runs only
 * against a server of its own: CORRAL_TEST_POSTGRES_RESTART_URL names it and
 * CORRAL_TEST_POSTGRES_RESTART_CMD is the shell command that restarts it
 * (for a private cluster: `pg_ctl -D <dir> -o '-p <port>' restart -m fast`).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import pg from "pg";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Ledger } from "../ledger.js";
import { PostgresLedgerStore } from "./store.js";
import type { StoreStatus } from "../store.js";
import { makeCall } from "../testing/fixtures.js";
import type { LedgerEvent } from "../types.js";

const URL_ = process.env.CORRAL_TEST_POSTGRES_RESTART_URL;
const CMD = process.env.CORRAL_TEST_POSTGRES_RESTART_CMD;
const SKIP = URL_ && CMD ? false : "set CORRAL_TEST_POSTGRES_RESTART_URL and CORRAL_TEST_POSTGRES_RESTART_CMD (a server of the test's own, and the command that restarts it) to run";

function restart(command: string): Promise<number | null> {
  const child = spawn("sh", ["-c", command], { stdio: "inherit" });
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("the PostgreSQL ledger across a real server restart", { timeout: 120_000, skip: SKIP }, () => {
  it("counts every record once and decides the quarantine once, with the outage reported", async (t) => {
    const schema = `t_restart_${process.pid}`;
    const statuses: StoreStatus[] = [];
    const events: LedgerEvent[] = [];
    const store = new PostgresLedgerStore({ url: URL_ as string, schema, retryMs: 100, connectTimeoutMs: 2_000 });
    const ledger = new Ledger({ store, policy: { strikes: 15 }, onEvent: (event) => events.push(event), onStoreStatus: (status) => statuses.push(status) });
    try {
      let stop = false;
      let made = 0;
      let strikes = 0;
      const loop = (async () => {
        while (!stop) {
          const outcome = made % 5 === 4 ? "crash" : "ok";
          if (outcome === "crash") strikes++;
          await ledger.record(makeCall({ outcome, at: Date.now(), callId: `c${made}` }));
          made++;
          await sleep(2);
        }
      })();
      await sleep(300);
      const code = await restart(CMD as string);
      assert.equal(code, 0, "the restart command succeeded");
      await sleep(300);
      stop = true;
      await loop;
      for (let i = 0; i < 500 && statuses.at(-1)?.type !== "restored"; i++) await sleep(20);
      t.diagnostic(`${made} records, ${strikes} strikes; statuses ${statuses.map((s) => s.type).join(", ")}`);
      assert.ok(statuses.some((s) => s.type === "unavailable"), "the outage was reported");
      assert.equal(statuses.at(-1)?.type, "restored");
      const report = await ledger.sourceReport("agent:alpha");
      assert.equal(report?.totals.calls, made, "every record once");
      assert.equal(report?.totals.strikes, strikes);
      assert.ok(strikes >= 15, `enough strikes to quarantine (${strikes})`);
      assert.deepEqual(report?.events.map((e) => e.kind), ["quarantine"]);
      assert.deepEqual(events.map((e) => e.kind), ["quarantine"], "announced once");
    } finally {
      await ledger.close();
      await dropSchema(schema);
    }
  });
});

/** Drops the test's schema on its private server. */
async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: URL_ });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
