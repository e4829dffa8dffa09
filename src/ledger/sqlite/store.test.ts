/**
 * @module src/ledger/sqlite/store.test
 * SqliteLedgerStore: the shared store suite on real files, then what only a
 * file can do: survive a restart, be shared by two connections, wait for a
 * lock another thread holds, and refuse a file it cannot read.
 */
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { LedgerUnavailableError } from "../errors.js";
import { Ledger } from "../ledger.js";
import { SqliteLedgerStore } from "./store.js";
import { COMMIT_BEHIND_MS } from "../../../sandbox/shared/tuning.js";
import { runStoreSuite } from "../store.case.js";
import { SCHEMA_VERSION } from "./schema.js";
import { MINUTE_MS, makeCall, manualClock, tempDir, versionOf } from "../testing/fixtures.js";
import { V5_COLUMNS, V5_TABLES, assertUpgraded, recordBeforeUpgrade } from "../testing/upgrade.js";
import type { CallRecord } from "../types.js";
import { expire } from "../transitions.js";

const dir = tempDir();
after(() => dir.remove());
let files = 0;
const nextPath = () => join(dir.path, `ledger-${++files}.db`);

runStoreSuite("SqliteLedgerStore", () => new SqliteLedgerStore({ path: nextPath() }));

describe("SqliteLedgerStore on disk", { timeout: 60_000 }, () => {
  it("keeps strikes, quarantines and events across a restart", async () => {
    const path = nextPath();
    const clock = manualClock();
    const first = new Ledger({ store: path, now: clock.now });
    for (let i = 0; i < 3; i++) await first.record(makeCall({ outcome: "timeout", at: clock.now() }));
    await first.quarantine("host:other", { reason: "by hand", actor: "ops" });
    await first.close();

    const second = new Ledger({ store: path, now: clock.now });
    try {
      const state = await second.check("agent:alpha");
      assert.equal(state.state, "quarantined");
      assert.equal((await second.check("host:other")).state, "quarantined");
      const report = await second.sourceReport("agent:alpha");
      assert.equal(report?.totals.outcomes.timeout, 3);
      assert.equal(report?.strikes.length, 3);
      assert.deepEqual(report?.events.map((e) => e.kind), ["quarantine"]);
    } finally {
      await second.close();
    }
  });

  it("counts the records of one turn together exactly as it counts them one by one", async () => {
    const clock = manualClock();
    // Runs of one tool and outcome, broken by other outcomes, tools, versions, sources and strikes;
    // times, heaps and `at` differ per call, so a wrong sum, maximum or "last" shows (the largest heap is mid-run).
    const plan: [string, string, number, CallRecord["outcome"]][] = [
      ["agent:alpha", "echo", 1, "ok"], ["agent:alpha", "echo", 1, "ok"], ["agent:alpha", "echo", 1, "ok"],
      ["agent:alpha", "echo", 1, "tool_error"], ["agent:alpha", "echo", 1, "tool_error"], ["agent:alpha", "echo", 1, "ok"],
      ["agent:alpha", "echo", 1, "timeout"], ["agent:alpha", "echo", 1, "ok"], ["agent:alpha", "other", 1, "ok"],
      ["agent:alpha", "other", 1, "ok"], ["agent:alpha", "echo", 2, "ok"], ["agent:alpha", "echo", 2, "ok"],
      ["agent:beta", "echo", 1, "ok"], ["agent:alpha", "echo", 2, "crash"], ["agent:alpha", "echo", 2, "crash"],
      ["agent:alpha", "echo", 2, "quarantined"], ["agent:beta", "echo", 1, "ok"], ["agent:beta", "echo", 1, "invalid_input"],
    ];
    const calls = plan.map(([source, tool, version, outcome], i) =>
      makeCall({ source, tool, version: versionOf(version), outcome, at: clock.now() + i * 1_000, wallMs: 1 + i, cpuMs: 0.5 * i, heapBytes: i === 1 ? 50_000 : 1_000 * ((i * 7) % 11) }),
    );
    const together = new Ledger({ store: nextPath(), now: clock.now });
    const oneByOne = new Ledger({ store: nextPath(), now: clock.now });
    try {
      await Promise.all(calls.map((call) => together.record(call)));
      for (const call of calls) await oneByOne.record(call);
      for (const source of ["agent:alpha", "agent:beta"]) {
        assert.deepEqual(await together.sourceReport(source), await oneByOne.sourceReport(source), source);
      }
      assert.equal((await together.sourceReport("agent:alpha"))?.state.state, "quarantined");
    } finally {
      await together.close();
      await oneByOne.close();
    }
  });

  it("lets two connections share one file: each sees the other's changes, and an expiry is recorded once", async () => {
    const path = nextPath();
    const clock = manualClock();
    const host = new Ledger({ store: path, now: clock.now });
    const cli = new Ledger({ store: path, now: clock.now });
    try {
      for (let i = 0; i < 3; i++) await host.record(makeCall({ outcome: "crash", at: clock.now() }));
      assert.equal((await cli.check("agent:alpha")).state, "quarantined");
      await cli.release("agent:alpha", { actor: "ops" });
      assert.equal((await host.check("agent:alpha")).state, "active", "the host sees the CLI's release at once");

      await cli.quarantine("agent:alpha", { reason: "cool down", actor: "ops", until: clock.now() + MINUTE_MS });
      clock.advance(MINUTE_MS);
      // Both stores decide on the state inside their own write transaction: the second finds nothing to expire.
      const a = new SqliteLedgerStore({ path });
      const b = new SqliteLedgerStore({ path });
      const fromA = await a.transition("agent:alpha", (state) => expire(state, clock.now()));
      const fromB = await b.transition("agent:alpha", (state) => expire(state, clock.now()));
      await a.close();
      await b.close();
      assert.equal(fromA.applied?.events[0]?.kind, "expire");
      assert.equal(fromB.applied, null);
      const report = await host.sourceReport("agent:alpha");
      assert.deepEqual(report?.events.map((e) => e.kind), ["expire", "manual_quarantine", "release", "quarantine"]);
    } finally {
      await host.close();
      await cli.close();
    }
  });

  it("commits records still waiting when it is closed", async () => {
    const path = nextPath();
    const store = new SqliteLedgerStore({ path });
    const pending = [store.recordCall(makeCall(), { keepStrikes: 5, decide: () => null }), store.recordCall(makeCall(), { keepStrikes: 5, decide: () => null })];
    await store.close();
    assert.equal((await Promise.all(pending)).length, 2);
    const reopened = new SqliteLedgerStore({ path });
    try {
      assert.equal((await reopened.listSources())[0]?.tools[0]?.totals.calls, 2);
    } finally {
      await reopened.close();
    }
  });

  it("holds records written behind to share a commit: until a later record's turn once half the window is gone, or COMMIT_BEHIND_MS; a record someone waits for takes them along at the next turn", async () => {
    const path = nextPath();
    const store = new SqliteLedgerStore({ path });
    // Another connection sees only what has been committed, as a CLI would.
    const elsewhere = new SqliteLedgerStore({ path });
    const committedCalls = async () => (await elsewhere.listSources()).reduce((sum, source) => sum + source.tools.reduce((n, tool) => n + tool.totals.calls, 0), 0);
    const behind = { keepStrikes: 5, decide: () => null, behind: true };
    try {
      const first = [store.recordCall(makeCall({ callId: "b1" }), behind), store.recordCall(makeCall({ callId: "b2" }), behind)];
      await nextTurn();
      assert.equal(await committedCalls(), 0, "records written behind wait past the turn");
      // The store's timer was set first and is shorter: it fires before this one.
      await sleep(COMMIT_BEHIND_MS + 5);
      assert.equal(await committedCalls(), 2);
      assert.equal((await Promise.all(first)).length, 2);

      // A record that comes when the oldest waiting is half the window old takes them all along at its turn.
      const aged = [store.recordCall(makeCall({ callId: "a1" }), behind)];
      await sleep(COMMIT_BEHIND_MS / 2 + 2);
      assert.equal(await committedCalls(), 2, "the window's timer has not fired yet");
      aged.push(store.recordCall(makeCall({ callId: "a2" }), behind));
      await nextTurn();
      assert.equal(await committedCalls(), 4, "the second record's turn committed both");
      await Promise.all(aged);

      const later = [store.recordCall(makeCall({ callId: "b3" }), behind), store.recordCall(makeCall({ outcome: "crash", callId: "s1" }), { keepStrikes: 5, decide: () => null })];
      await nextTurn();
      assert.equal(await committedCalls(), 6, "the strike's commit took the record before it along, in order");
      const [, strike] = await Promise.all(later);
      assert.ok(strike !== undefined);
      const tools = (await elsewhere.listSources())[0]?.tools ?? [];
      assert.equal(tools.reduce((n, tool) => n + tool.totals.strikes, 0), 1);
    } finally {
      await store.close();
      await elsewhere.close();
    }
  });

  it("writes in WAL mode and waits for a writer in another thread instead of failing", async () => {
    const path = nextPath();
    const store = new SqliteLedgerStore({ path, busyTimeoutMs: 5_000 });
    try {
      const raw = new Database(path, { readonly: true });
      assert.equal(raw.pragma("journal_mode", { simple: true }), "wal");
      raw.close();

      const worker = new Worker(
        `const { parentPort, workerData } = require("node:worker_threads");
         const Database = require(workerData.driver);
         const db = new Database(workerData.path);
         db.exec("BEGIN IMMEDIATE");
         parentPort.postMessage("locked");
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
         db.exec("COMMIT");
         parentPort.postMessage(Date.now());
         db.close();`,
        { eval: true, workerData: { path, driver: createRequire(import.meta.url).resolve("better-sqlite3") } },
      );
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      const messages: unknown[] = [];
      let wake: () => void = () => undefined;
      worker.on("message", (message) => {
        messages.push(message);
        wake();
      });
      const nextMessage = async (): Promise<unknown> => {
        while (messages.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return messages.shift();
      };
      assert.equal(await nextMessage(), "locked");
      await store.recordCall(makeCall(), { keepStrikes: 5, decide: () => null });
      const recordedAt = Date.now();
      const releasedAt = (await nextMessage()) as number;
      await exited;
      assert.ok(recordedAt >= releasedAt, `the write finished (${recordedAt}) only after the other thread let go of the lock (${releasedAt})`);
      assert.equal((await store.listSources()).length, 1);
    } finally {
      await store.close();
    }
  });

  it("checkpoints on a thread of its own: committed pages reach the database file while records go on", async () => {
    const path = nextPath();
    const store = new SqliteLedgerStore({ path });
    const ledger = new Ledger({ store });
    try {
      const before = statSync(path).size;
      // Far below the safety net, so the writer itself never checkpoints.
      for (let i = 0; i < 40; i++) await ledger.record(makeCall({ tool: `tool_${i}`, callId: `c${i}` }));
      const deadline = Date.now() + 10_000;
      while (statSync(path).size === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(statSync(path).size > before, `the database file stayed at ${before} bytes: nothing was checkpointed`);
      await ledger.record(makeCall({ tool: "tool_0", callId: "after" }));
    } finally {
      await ledger.close();
    }
    const reopened = new Ledger({ store: path });
    try {
      const report = await reopened.sourceReport("agent:alpha");
      assert.equal(report?.tools.length, 40);
    } finally {
      await reopened.close();
    }
  });

  it("fails with ledger_unavailable when the lock is held past busyTimeoutMs", async () => {
    const path = nextPath();
    const store = new SqliteLedgerStore({ path, busyTimeoutMs: 200 });
    const holder = new Database(path);
    try {
      holder.exec("BEGIN IMMEDIATE");
      const started = Date.now();
      await assert.rejects(store.recordCall(makeCall(), { keepStrikes: 5, decide: () => null }), (error: unknown) => {
        assert.ok(error instanceof LedgerUnavailableError);
        assert.equal(error.code, "ledger_unavailable");
        assert.match(String(error.data.cause), /^SQLITE_BUSY/);
        return true;
      });
      assert.ok(Date.now() - started >= 150, "it waited for the busy timeout first");
      holder.exec("ROLLBACK");
      await store.recordCall(makeCall(), { keepStrikes: 5, decide: () => null });
      assert.equal((await store.listSources()).length, 1, "the store works again once the lock is gone");
    } finally {
      holder.close();
      await store.close();
    }
  });

  it("refuses a file from a newer schema, and a row it cannot read", async () => {
    const newer = nextPath();
    const raw = new Database(newer);
    raw.pragma("user_version = 99");
    raw.close();
    assert.throws(() => new SqliteLedgerStore({ path: newer }), (error: unknown) => error instanceof LedgerUnavailableError && /schema version 99/.test(error.message));

    const path = nextPath();
    const store = new SqliteLedgerStore({ path });
    try {
      const writer = new Database(path);
      writer.prepare("INSERT INTO sources (source, state, since) VALUES ('agent:broken', 'quarantined', 5)").run();
      writer.close();
      await assert.rejects(store.readState("agent:broken"), (error: unknown) => error instanceof LedgerUnavailableError && error.data.cause === "unreadable_row");
    } finally {
      await store.close();
    }
  });

  for (const from of [3, 4]) {
    it(`migrates a version-${from} ledger with records in it: they stay as they were; scripts' calls, calls per version and tools' errors count from then on`, async () => {
      const path = nextPath();
      const ledger = new Ledger({ store: path, policy: { strikes: 1_000 } });
      const before = await recordBeforeUpgrade(ledger);
      await ledger.close();
      // Make it what a corral of that schema left behind.
      const raw = new Database(path);
      assert.equal(raw.pragma("user_version", { simple: true }), SCHEMA_VERSION);
      for (const table of V5_TABLES) raw.exec(`DROP TABLE ${table}`);
      for (const column of V5_COLUMNS) raw.exec(`ALTER TABLE tools DROP COLUMN ${column}`);
      if (from === 3) raw.exec("DROP TABLE script_calls");
      raw.pragma(`user_version = ${from}`);
      raw.close();

      const migrated = new Ledger({ store: path, policy: { strikes: 1_000 } });
      try {
        await assertUpgraded(migrated, before, async () => {
          const reader = new Database(path, { readonly: true });
          try {
            return (reader.prepare("SELECT errors FROM tools WHERE source = 'agent:m' AND tool = 'add'").get() as { errors: number }).errors;
          } finally {
            reader.close();
          }
        });
      } finally {
        await migrated.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        assert.equal(check.pragma("user_version", { simple: true }), SCHEMA_VERSION);
      } finally {
        check.close();
      }
    });
  }

  it("parses its options strictly", () => {
    assert.throws(() => new SqliteLedgerStore({ path: nextPath(), busyTimeout: 5 } as never), /busyTimeout.*\[invalid_options\]|Unrecognized key.*busyTimeout/);
    assert.throws(() => new SqliteLedgerStore({ path: nextPath(), synchronous: "off" as never }), /invalid_options/);
  });

  it("opens .corral/ledger.db under the working directory by default", async () => {
    const cwd = process.cwd();
    const work = tempDir();
    process.chdir(work.path);
    try {
      const ledger = new Ledger();
      await ledger.record(makeCall());
      await ledger.close();
      assert.ok(existsSync(join(work.path, ".corral", "ledger.db")));
    } finally {
      process.chdir(cwd);
      work.remove();
    }
  });
});
