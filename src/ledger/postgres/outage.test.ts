/**
 * @module src/ledger/postgres/outage.test
 * PostgresLedgerStore when its server fails it: connections ended by the
 * server (pg_terminate_backend) mid-run, the server unreachable (a proxy in
 * front of it cut) at start or mid-run, a lock held by another session, a
 * buffer that fills up, and close() during an outage. Nothing is counted
 * twice, nothing is lost without a status that says so, nothing hangs.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { CorralError } from "../../errors.js";
import { Ledger } from "../ledger.js";
import { HEARTBEAT_MS } from "./listener.js";
import { PostgresLedgerStore } from "./store.js";
import type { PostgresStoreOptions } from "./connection.js";
import type { StoreStatus } from "../store.js";
import { makeCall } from "../testing/fixtures.js";
import { SKIP_POSTGRES, TEST_POSTGRES_URL, terminateConnections, testSchemas } from "../testing/postgres.js";
import { TcpProxy, targetOf } from "../testing/tcp-proxy.js";
import type { LedgerEvent } from "../types.js";

const schemas = testSchemas("outage");
after(() => schemas.dropAll());
const keepAll = { keepStrikes: 10, decide: () => null };
const FAST = { connectTimeoutMs: 1_000, retryMs: 50 } as const;

/** A store through a proxy the test can cut, with every status it reports. */
async function throughProxy(options: Partial<PostgresStoreOptions> = {}) {
  const url = TEST_POSTGRES_URL as string;
  const proxy = new TcpProxy(targetOf(url));
  await proxy.up();
  const statuses: StoreStatus[] = [];
  const store = new PostgresLedgerStore({ url: proxy.rewrite(url), schema: schemas.next(), ...FAST, ...options });
  store.watch({ lateChange: () => undefined, status: (status) => statuses.push(status) });
  return { proxy, store, statuses };
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const callsOf = async (store: PostgresLedgerStore) => (await store.listSources()).flatMap((s) => s.tools).reduce((sum, tool) => sum + tool.totals.calls, 0);

describe("PostgresLedgerStore when the server fails it", { timeout: 120_000, skip: SKIP_POSTGRES }, () => {
  it("counts every record exactly once while the server ends its connections mid-run", async (t) => {
    const store = new PostgresLedgerStore({ url: TEST_POSTGRES_URL as string, schema: schemas.next(), ...FAST });
    const statuses: StoreStatus[] = [];
    store.watch({ lateChange: () => undefined, status: (status) => statuses.push(status) });
    try {
      await store.readState("agent:alpha");
      let ended = 0;
      const records: Promise<unknown>[] = [];
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 50; i++) records.push(store.recordCall(makeCall({ outcome: i % 10 === 0 ? "timeout" : "ok", callId: `r${round}-${i}` }), keepAll));
        if (round % 4 === 1) ended += await terminateConnections(store.connectionName);
        await sleep(5);
      }
      await Promise.all(records);
      await until(() => statuses.every((s) => s.type !== "unavailable") || statuses.at(-1)?.type === "restored", "the store to be back");
      t.diagnostic(`ended ${ended} connections; statuses: ${statuses.map((s) => s.type).join(", ") || "none"}`);
      assert.ok(ended > 0, "connections were ended under the store");
      assert.equal(await callsOf(store), 1_000, "every record once");
      const detail = await store.readSource("agent:alpha", { events: 0, strikes: 0 });
      assert.equal(detail?.tools[0]?.totals.strikes, 100);
    } finally {
      await store.close();
    }
  });

  it("keeps answering while the server cannot be reached, writes the records when it is back, and tells of a quarantine decided then", async () => {
    const { proxy, store, statuses } = await throughProxy();
    const events: LedgerEvent[] = [];
    const ledger = new Ledger({ store, onEvent: (event) => events.push(event) });
    try {
      await ledger.record(makeCall({ outcome: "ok", at: Date.now() }));
      await proxy.down();
      const started = performance.now();
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await ledger.record(makeCall({ outcome: "crash", at: Date.now(), callId: `down-${i}` })));
      assert.deepEqual(results.map((r) => r.state.state), ["active", "active", "active", "active", "active"], "settled with the last known state");
      assert.ok(performance.now() - started < 5_000, "records do not wait for the server");
      assert.equal(statuses[0]?.type, "unavailable");
      await assert.rejects(ledger.check("agent:alpha"), (error: unknown) => error instanceof CorralError && error.code === "ledger_unavailable" && error.data.outage === true);
      await assert.rejects(ledger.release("agent:alpha", { actor: "ops" }), /unreachable/);
      assert.equal(events.length, 0, "nothing decided yet");
      await proxy.up();
      await until(() => statuses.some((s) => s.type === "restored"), "restored");
      const restored = statuses.find((s) => s.type === "restored");
      assert.equal(restored?.type === "restored" && restored.written, 5);
      assert.deepEqual(events.map((e) => e.kind), ["quarantine"], "the quarantine the late records made is announced once");
      assert.equal((await ledger.check("agent:alpha")).state, "quarantined");
      const report = await ledger.sourceReport("agent:alpha");
      assert.equal(report?.totals.calls, 6);
      assert.deepEqual(report?.strikes.map((s) => s.callId), ["down-4", "down-3", "down-2", "down-1", "down-0"], "written in order");
    } finally {
      await ledger.close();
      await proxy.down();
    }
  });

  it("opens while the server is down, and creates its schema when it comes up", async () => {
    const { proxy, store, statuses } = await throughProxy();
    try {
      await proxy.down();
      const fresh = new PostgresLedgerStore({ url: proxy.rewrite(TEST_POSTGRES_URL as string), schema: schemas.next(), ...FAST });
      const seen: StoreStatus[] = [];
      fresh.watch({ lateChange: () => undefined, status: (status) => seen.push(status) });
      try {
        const applied = await fresh.recordCall(makeCall(), keepAll);
        assert.equal(applied.state.state, "active");
        await until(() => seen.some((s) => s.type === "unavailable"), "the outage reported");
        await proxy.up();
        await until(() => seen.some((s) => s.type === "restored"), "restored");
        assert.equal(await callsOf(fresh), 1);
      } finally {
        await fresh.close();
      }
    } finally {
      await store.close();
      await proxy.down();
    }
  });

  it("refuses records past maxBufferedRecords, each with a status and a rejected promise", async () => {
    const { proxy, store, statuses } = await throughProxy({ maxBufferedRecords: 5 });
    try {
      await store.readState("agent:alpha");
      await proxy.down();
      const settled = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.recordCall(makeCall({ callId: `b${i}` }), keepAll)));
      assert.deepEqual(settled.map((s) => s.status), ["fulfilled", "fulfilled", "fulfilled", "fulfilled", "fulfilled", "rejected", "rejected", "rejected"]);
      const refused = settled[5];
      assert.ok(refused?.status === "rejected" && refused.reason instanceof CorralError && refused.reason.data.cause === "buffer_full");
      assert.deepEqual(statuses.filter((s) => s.type === "record_refused").map((s) => s.type === "record_refused" && s.callId), ["b5", "b6", "b7"]);
      await proxy.up();
      await until(() => statuses.some((s) => s.type === "restored"), "restored");
      assert.equal(await callsOf(store), 5);
    } finally {
      await store.close();
      await proxy.down();
    }
  });

  it("waits lock_timeout for a lock another session holds, then keeps the record and writes it once the lock is gone", async () => {
    const schema = schemas.next();
    const store = new PostgresLedgerStore({ url: TEST_POSTGRES_URL as string, schema, ...FAST, lockTimeoutMs: 200 });
    const statuses: StoreStatus[] = [];
    store.watch({ lateChange: () => undefined, status: (status) => statuses.push(status) });
    const other = new pg.Client({ connectionString: TEST_POSTGRES_URL, application_name: "corral-test-lock" });
    await other.connect();
    try {
      await store.recordCall(makeCall(), keepAll);
      await other.query("BEGIN");
      await other.query(`SELECT * FROM "${schema}".sources WHERE source = 'agent:alpha' FOR UPDATE`);
      const started = performance.now();
      const applied = await store.recordCall(makeCall({ outcome: "timeout" }), keepAll);
      const waitedMs = performance.now() - started;
      assert.equal(applied.applied, null);
      assert.ok(waitedMs >= 150 && waitedMs < 5_000, `waited about lock_timeout (${waitedMs.toFixed(0)} ms)`);
      const down = statuses.find((s) => s.type === "unavailable");
      assert.ok(down?.type === "unavailable" && down.cause === "55P03", `reported as a lock held elsewhere: ${JSON.stringify(down)}`);
      await other.query("COMMIT");
      await until(() => statuses.some((s) => s.type === "restored"), "restored");
      const detail = await store.readSource("agent:alpha", { events: 0, strikes: 10 });
      assert.equal(detail?.tools[0]?.totals.calls, 2);
      assert.equal(detail?.strikes.length, 1);
    } finally {
      await other.end();
      await store.close();
    }
  });

  it("finds a listening connection that went silent by its heartbeat, and reads the database meanwhile", async () => {
    const { proxy, store } = await throughProxy();
    try {
      await store.readState("agent:alpha");
      store.changesElsewhere();
      await until(() => store.changesElsewhere() === store.changesElsewhere(), "the listener to be live");
      proxy.stall(true);
      const started = performance.now();
      const before = store.changesElsewhere();
      await until(() => store.changesElsewhere() !== before, "the heartbeat to give up", HEARTBEAT_MS + 5_000);
      const foundMs = performance.now() - started;
      assert.ok(foundMs <= HEARTBEAT_MS + FAST.connectTimeoutMs + 1_000, `found within a heartbeat and its timeout (${foundMs.toFixed(0)} ms)`);
      assert.notEqual(store.changesElsewhere(), store.changesElsewhere(), "until it is back, every read goes to the database");
      proxy.stall(false);
    } finally {
      await store.close();
      await proxy.down();
    }
  });

  it("gives up on a write the network swallowed after statementTimeoutMs + 1 s, keeps the record, and counts it once", async () => {
    const { proxy, store, statuses } = await throughProxy({ statementTimeoutMs: 500 });
    try {
      await store.recordCall(makeCall(), keepAll);
      proxy.stall(true);
      const started = performance.now();
      const applied = await store.recordCall(makeCall({ outcome: "crash" }), keepAll);
      const waitedMs = performance.now() - started;
      assert.equal(applied.applied, null, "settled with the last known state");
      assert.ok(waitedMs < 5_000, `bounded by the query timeout (${waitedMs.toFixed(0)} ms)`);
      assert.ok(statuses.some((s) => s.type === "unavailable"));
      proxy.stall(false);
      await until(() => statuses.some((s) => s.type === "restored"), "restored");
      const detail = await store.readSource("agent:alpha", { events: 0, strikes: 10 });
      assert.equal(detail?.tools[0]?.totals.calls, 2);
      assert.equal(detail?.strikes.length, 1);
    } finally {
      await store.close();
      await proxy.down();
    }
  });

  it("says what it could not write when closed during an outage, and does not hang", async () => {
    const { proxy, store, statuses } = await throughProxy();
    await store.readState("agent:alpha");
    await proxy.down();
    for (let i = 0; i < 3; i++) await store.recordCall(makeCall(), keepAll);
    const started = performance.now();
    await store.close();
    assert.ok(performance.now() - started < 5_000);
    const lost = statuses.find((s) => s.type === "records_lost");
    assert.ok(lost?.type === "records_lost" && lost.count === 3, JSON.stringify(statuses));
  });
});
