/**
 * @module src/ledger/store.case
 * The one suite every LedgerStore must pass, run by sqlite/store.test.ts,
 * memory/store.test.ts and postgres/store.test.ts: the store's contract
 * first, then the Ledger's behaviour on top of it, with a clock the tests
 * move by hand; then the script-call counters (script-calls.case.ts) and
 * each tool's counts per version and latest errors (tool-counts.case.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ledger } from "./ledger.js";
import { runScriptCallsSuite } from "./script-calls.case.js";
import { runToolCountsSuite } from "./tool-counts.case.js";
import { LedgerClosedError } from "./errors.js";
import type { LedgerStore } from "./store.js";
import { MINUTE_MS, T0, makeCall, manualClock, versionOf } from "./testing/fixtures.js";
import { quarantineByHand } from "./transitions.js";
import type { SourceState } from "./types.js";

export type StoreFactory = () => LedgerStore | Promise<LedgerStore>;

const keepAll = { keepStrikes: 10, decide: () => null };

export function runStoreSuite(name: string, createStore: StoreFactory): void {
  async function withStore(work: (store: LedgerStore) => Promise<void>): Promise<void> {
    const store = await createStore();
    try {
      await work(store);
    } finally {
      await store.close();
    }
  }

  async function withLedger(work: (ledger: Ledger, clock: ReturnType<typeof manualClock>) => Promise<void>, policy = {}): Promise<void> {
    const clock = manualClock();
    const ledger = new Ledger({ store: await createStore(), now: clock.now, policy });
    try {
      await work(ledger, clock);
    } finally {
      await ledger.close();
    }
  }

  describe(`${name}: the LedgerStore contract`, { timeout: 60_000 }, () => {
    it("knows nothing of a source it never saw", async () => {
      await withStore(async (store) => {
        assert.deepEqual(await store.readState("agent:nobody"), { source: "agent:nobody", state: "active", since: null });
        assert.equal(await store.readSource("agent:nobody", { events: 5, strikes: 5 }), null);
        assert.deepEqual(await store.listSources(), []);
      });
    });

    it("counts every outcome kind, wall and cpu time, per tool, across versions", async () => {
      await withStore(async (store) => {
        const calls = [
          makeCall({ tool: "a", outcome: "ok", wallMs: 3, cpuMs: 1, heapBytes: 10, at: T0 + 1 }),
          makeCall({ tool: "a", outcome: "tool_error", wallMs: 5, cpuMs: 2, heapBytes: 50, at: T0 + 2, message: "bad" }),
          makeCall({ tool: "a", outcome: "invalid_input", wallMs: 1, cpuMs: 0, heapBytes: 20, at: T0 + 3, version: versionOf(2) }),
          makeCall({ tool: "b", outcome: "busy", wallMs: 7, cpuMs: 0, heapBytes: 0, at: T0 + 4, version: versionOf(3) }),
          makeCall({ tool: "b", outcome: "ok", wallMs: 4.5, cpuMs: 4, heapBytes: 5, at: T0 + 5, version: versionOf(2) }),
        ];
        for (const call of calls) await store.recordCall(call, keepAll);
        const [source, ...others] = await store.listSources();
        assert.equal(others.length, 0);
        assert.ok(source !== undefined);
        assert.equal(source.versions, 3, "three distinct versions of one source");
        assert.equal(source.lastVersion, versionOf(2));
        const a = source.tools.find((tool) => tool.tool === "a");
        const b = source.tools.find((tool) => tool.tool === "b");
        assert.ok(a !== undefined && b !== undefined);
        assert.equal(a.totals.calls, 3);
        assert.equal(a.totals.strikes, 0);
        assert.deepEqual([a.totals.outcomes.ok, a.totals.outcomes.tool_error, a.totals.outcomes.invalid_input, a.totals.outcomes.timeout], [1, 1, 1, 0]);
        assert.equal(a.totals.totalWallMs, 9);
        assert.equal(a.totals.totalCpuMs, 3);
        assert.equal(a.totals.lastWallMs, 1);
        assert.equal(a.totals.maxHeapBytes, 50);
        assert.equal(a.totals.lastCallAt, T0 + 3);
        assert.equal(a.lastStrike, null);
        assert.deepEqual([b.totals.calls, b.totals.outcomes.busy, b.totals.outcomes.ok, b.totals.totalWallMs, b.totals.lastWallMs], [2, 1, 1, 11.5, 4.5]);
      });
    });

    it("keeps strikes (and only strikes) with their messages, newest first, pruned to keepStrikes", async () => {
      await withStore(async (store) => {
        const seen: number[][] = [];
        const decide = (_state: SourceState, times: readonly number[]) => {
          seen.push([...times]);
          return null;
        };
        await store.recordCall(makeCall({ outcome: "tool_error", message: "mine", at: T0 }), { keepStrikes: 3, decide });
        await store.recordCall(makeCall({ outcome: "quarantined", at: T0 + 1 }), { keepStrikes: 3, decide });
        for (let i = 0; i < 5; i++) {
          const outcome = (["timeout", "memory", "crash"] as const)[i % 3];
          await store.recordCall(makeCall({ outcome, message: `strike ${i}`, callId: `s${i}`, at: T0 + 10 + i }), { keepStrikes: 3, decide });
        }
        assert.deepEqual(seen[0], [], "a tool error is not a strike");
        assert.deepEqual(seen[1], [], "a refused call is not a strike");
        assert.deepEqual(seen[2], [T0 + 10], "the call just counted is among the strike times");
        assert.deepEqual(seen[6], [T0 + 14, T0 + 13, T0 + 12]);
        const detail = await store.readSource("agent:alpha", { events: 10, strikes: 10 });
        assert.ok(detail !== null);
        assert.deepEqual(detail.strikes.map((s) => s.callId), ["s4", "s3", "s2"], "older strikes pruned");
        assert.equal(detail.strikes[0]?.outcome, "memory");
        assert.equal(detail.strikes[0]?.message, "strike 4");
        assert.equal(detail.lastStrike?.callId, "s4");
        const echo = detail.tools[0];
        assert.equal(echo?.totals.strikes, 5);
        assert.equal(echo?.totals.calls, 7);
        assert.deepEqual(echo?.lastStrike, { at: T0 + 14, outcome: "memory", message: "strike 4" });
        const limited = await store.readSource("agent:alpha", { events: 10, strikes: 1 });
        assert.deepEqual(limited?.strikes.map((s) => s.callId), ["s4"]);
      });
    });

    it("stores the transition decide returns, in the same write as the call", async () => {
      await withStore(async (store) => {
        const request = { reason: "test", until: T0 + 100, actor: "tester" };
        const result = await store.recordCall(makeCall({ outcome: "crash" }), {
          keepStrikes: 5,
          decide: (state) => (state.state === "active" ? quarantineByHand(state, request, T0) : null),
        });
        assert.equal(result.state.state, "quarantined");
        assert.equal(result.applied?.events.length, 1);
        const state = await store.readState("agent:alpha");
        assert.deepEqual(state, { source: "agent:alpha", state: "quarantined", since: T0, until: T0 + 100, reason: "test", actor: "tester" });
        const detail = await store.readSource("agent:alpha", { events: 5, strikes: 5 });
        assert.deepEqual(detail?.events.map((e) => [e.kind, e.actor, e.until]), [["manual_quarantine", "tester", T0 + 100]]);
      });
    });

    it("writes nothing when decide returns null, and creates a source when a change is made", async () => {
      await withStore(async (store) => {
        const none = await store.transition("agent:quiet", () => null);
        assert.equal(none.applied, null);
        assert.deepEqual(await store.listSources(), [], "a no-op transition leaves no trace");
        const made = await store.transition("plugin:never-called", (state) => quarantineByHand(state, { reason: "suspicious", until: null, actor: "ops" }, T0));
        assert.equal(made.state.state, "quarantined");
        const listed = await store.listSources();
        assert.equal(listed.length, 1);
        assert.equal(listed[0]?.state.source, "plugin:never-called");
        assert.equal(listed[0]?.versions, 0);
        assert.equal(listed[0]?.lastVersion, null);
        assert.deepEqual(listed[0]?.tools, []);
      });
    });

    it("knows a source from its first load: its version and its tools with zero calls", async () => {
      await withStore(async (store) => {
        await store.recordLoad({ source: "agent:loaded", version: versionOf(1), tools: ["a", "b"], at: T0 });
        const detail = await store.readSource("agent:loaded", { events: 5, strikes: 5 });
        assert.deepEqual(detail?.state, { source: "agent:loaded", state: "active", since: null });
        assert.equal(detail?.versions, 1);
        assert.equal(detail?.lastVersion, versionOf(1));
        assert.deepEqual(detail?.tools.map((t) => [t.tool, t.totals.calls, t.totals.lastCallAt, t.totals.lastWallMs, t.lastStrike]).sort(), [["a", 0, null, null, null], ["b", 0, null, null, null]]);
        // A load again, or of a new version, changes no count; a call then counts as usual.
        await store.recordLoad({ source: "agent:loaded", version: versionOf(2), tools: ["a"], at: T0 + 1 });
        await store.recordCall(makeCall({ source: "agent:loaded", tool: "a", version: versionOf(2), at: T0 + 2, wallMs: 3 }), keepAll);
        const [listed] = await store.listSources();
        assert.equal(listed?.versions, 2);
        const a = listed?.tools.find((t) => t.tool === "a");
        assert.deepEqual([a?.totals.calls, a?.totals.lastCallAt, a?.totals.lastWallMs], [1, T0 + 2, 3]);
        assert.equal(listed?.tools.find((t) => t.tool === "b")?.totals.calls, 0);
        // A quarantined source stays quarantined when it loads.
        await store.transition("agent:loaded", (state) => quarantineByHand(state, { reason: "r", until: null, actor: "ops" }, T0 + 3));
        await store.recordLoad({ source: "agent:loaded", version: versionOf(3), tools: ["c"], at: T0 + 4 });
        assert.equal((await store.readState("agent:loaded")).state, "quarantined");
      });
    });

    it("lists events newest first, up to the limit asked", async () => {
      await withStore(async (store) => {
        for (let i = 0; i < 4; i++) {
          await store.transition("host:x", (state) => quarantineByHand(state, { reason: `r${i}`, until: null, actor: "ops" }, T0 + i));
        }
        const detail = await store.readSource("host:x", { events: 2, strikes: 0 });
        assert.deepEqual(detail?.events.map((e) => e.reason), ["r3", "r2"]);
        const none = await store.readSource("host:x", { events: 0, strikes: 0 });
        assert.deepEqual(none?.events, []);
      });
    });

    it("hands out copies: changing what it returned changes nothing stored", async () => {
      await withStore(async (store) => {
        await store.recordCall(makeCall(), keepAll);
        const [first] = await store.listSources();
        assert.ok(first?.tools[0] !== undefined);
        first.tools[0].totals.calls = 999;
        const [again] = await store.listSources();
        assert.equal(again?.tools[0]?.totals.calls, 1);
      });
    });

    it("counts records issued together, each in order, and answers reads after them", async () => {
      await withStore(async (store) => {
        const seen: number[] = [];
        const decide = (_state: SourceState, times: readonly number[]) => {
          seen.push(times.length);
          return null;
        };
        const pending = Array.from({ length: 40 }, (_, i) => store.recordCall(makeCall({ outcome: i % 10 === 9 ? "crash" : "ok", at: T0 + i }), { keepStrikes: 10, decide }));
        // Not awaited yet: a read issued after the records must still see every one of them.
        const detail = await store.readSource("agent:alpha", { events: 0, strikes: 10 });
        const results = await Promise.all(pending);
        assert.equal(results.length, 40);
        assert.equal(detail?.tools[0]?.totals.calls, 40);
        assert.equal(detail?.tools[0]?.totals.outcomes.crash, 4);
        assert.deepEqual(seen.filter((n) => n > 0), [1, 2, 3, 4], "each strike decided on the strikes before it");
      });
    });

    it("refuses every use after close, with a typed error", async () => {
      const store = await createStore();
      assert.equal(store.alive, true);
      await store.close();
      await store.close();
      assert.equal(store.alive, false);
      await assert.rejects(store.readState("agent:a"), LedgerClosedError);
      await assert.rejects(store.recordCall(makeCall(), keepAll), (error: unknown) => error instanceof LedgerClosedError && error.code === "ledger_closed");
      await assert.rejects(store.transition("agent:a", () => null), LedgerClosedError);
      await assert.rejects(store.listSources(), LedgerClosedError);
      await assert.rejects(store.recordLoad({ source: "agent:a", version: versionOf(1), tools: [], at: T0 }), LedgerClosedError);
      await assert.rejects(store.readSource("agent:a", { events: 1, strikes: 1 }), LedgerClosedError);
    });
  });

  describe(`${name}: the Ledger on this store`, { timeout: 60_000 }, () => {
    it("quarantines on the 3rd strike within the window, not the 2nd", async () => {
      await withLedger(async (ledger, clock) => {
        const first = await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
        clock.advance(MINUTE_MS);
        const second = await ledger.record(makeCall({ outcome: "crash", at: clock.now() }));
        assert.deepEqual([first.strike, second.strike, second.state.state, second.quarantined], [true, true, "active", undefined]);
        assert.equal((await ledger.check("agent:alpha")).state, "active");
        await ledger.record(makeCall({ outcome: "tool_error", at: clock.now() }));
        clock.advance(MINUTE_MS);
        const third = await ledger.record(makeCall({ outcome: "memory", message: "heap limit", at: clock.now() }));
        assert.equal(third.quarantined?.state, "quarantined");
        assert.equal(third.quarantined?.until, clock.now() + 15 * MINUTE_MS);
        assert.match(third.quarantined?.reason ?? "", /3 strikes within 10 min.*memory in echo: heap limit/);
        assert.deepEqual(third.events.map((e) => [e.kind, e.actor]), [["quarantine", "policy"]]);
        const checked = await ledger.check("agent:alpha");
        assert.equal(checked.state, "quarantined");
        assert.equal(checked.state === "quarantined" && checked.since, clock.now());
      });
    });

    it("quarantines once when strikes arrive together, on the 3rd of them", async () => {
      await withLedger(async (ledger, clock) => {
        const results = await Promise.all(Array.from({ length: 5 }, () => ledger.record(makeCall({ outcome: "timeout", at: clock.now() }))));
        assert.deepEqual(results.map((r) => r.quarantined !== undefined), [false, false, true, false, false]);
        assert.deepEqual(results.map((r) => r.state.state), ["active", "active", "quarantined", "quarantined", "quarantined"]);
        const report = await ledger.sourceReport("agent:alpha");
        assert.deepEqual(report?.events.map((e) => e.kind), ["quarantine"]);
        assert.equal(report?.totals.strikes, 5);
      });
    });

    it("does not count strikes outside the window", async () => {
      await withLedger(async (ledger, clock) => {
        await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
        await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
        clock.advance(10 * MINUTE_MS + 1);
        const third = await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
        assert.equal(third.state.state, "active", "two strikes are 10 min + 1 ms old");
        const fourth = await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
        assert.equal(fourth.state.state, "active");
        const fifth = await ledger.record(makeCall({ outcome: "crash", at: clock.now() }));
        assert.equal(fifth.state.state, "quarantined");
      });
    });

    it("ends a timed quarantine lazily in check, recording one expire event", async () => {
      await withLedger(async (ledger, clock) => {
        for (let i = 0; i < 3; i++) await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
        clock.advance(15 * MINUTE_MS - 1);
        assert.equal((await ledger.check("agent:alpha")).state, "quarantined");
        clock.advance(1);
        const state = await ledger.check("agent:alpha");
        assert.deepEqual(state, { source: "agent:alpha", state: "active", since: clock.now() });
        await ledger.check("agent:alpha");
        await ledger.summary();
        const report = await ledger.sourceReport("agent:alpha");
        assert.deepEqual(report?.events.map((e) => e.kind), ["expire", "quarantine"], "one expire, newest first");
        assert.equal(report?.events[0]?.until, T0 + 15 * MINUTE_MS, "the expire event names the end that passed");
      });
    });

    it("forgives strikes before a release: the next strike alone does not re-quarantine", async () => {
      await withLedger(async (ledger, clock) => {
        for (let i = 0; i < 3; i++) await ledger.record(makeCall({ outcome: "crash", at: clock.now() }));
        clock.advance(1_000);
        const released = await ledger.release("agent:alpha", { actor: "ops" });
        assert.deepEqual(released.events.map((e) => [e.kind, e.actor, e.reason]), [["release", "ops", "released by ops"]]);
        clock.advance(1_000);
        const next = await ledger.record(makeCall({ outcome: "crash", at: clock.now() }));
        assert.equal(next.state.state, "active");
        await ledger.record(makeCall({ outcome: "crash", at: clock.now() }));
        const third = await ledger.record(makeCall({ outcome: "crash", at: clock.now() }));
        assert.equal(third.state.state, "quarantined", "three new strikes after the release");
      });
    });

    it("keeps a no-auto-release quarantine until an operator releases it", async () => {
      await withLedger(
        async (ledger, clock) => {
          for (let i = 0; i < 3; i++) await ledger.record(makeCall({ outcome: "memory", at: clock.now() }));
          clock.advance(365 * 24 * 60 * MINUTE_MS);
          const state = await ledger.check("agent:alpha");
          assert.equal(state.state === "quarantined" && state.until, null);
          const again = await ledger.release("agent:alpha", { actor: "ops", reason: "fixed upstream" });
          assert.equal(again.state.state, "active");
          const twice = await ledger.release("agent:alpha", { actor: "ops" });
          assert.deepEqual(twice.events, [], "releasing an active source records nothing");
          assert.equal((await ledger.check("agent:alpha")).state, "active");
        },
        { quarantineMs: null },
      );
    });

    it("lets an operator quarantine by hand, with or without an end", async () => {
      await withLedger(async (ledger, clock) => {
        const change = await ledger.quarantine("plugin:tools/risky", { reason: "reported by a user", actor: "alice" });
        assert.deepEqual(change.state, { source: "plugin:tools/risky", state: "quarantined", since: clock.now(), until: null, reason: "reported by a user", actor: "alice" });
        assert.equal(change.events[0]?.kind, "manual_quarantine");
        await ledger.quarantine("plugin:tools/risky", { reason: "for an hour", actor: "bob", until: clock.now() + 60 * MINUTE_MS });
        clock.advance(60 * MINUTE_MS);
        assert.equal((await ledger.check("plugin:tools/risky")).state, "active");
        const report = await ledger.sourceReport("plugin:tools/risky");
        assert.deepEqual(report?.events.map((e) => [e.kind, e.actor]), [["expire", "policy"], ["manual_quarantine", "bob"], ["manual_quarantine", "alice"]]);
      });
    });

    it("sorts the summary by trouble and reports totals, rates and the last strike", async () => {
      await withLedger(async (ledger, clock) => {
        const at = clock.now();
        for (let i = 0; i < 4; i++) await ledger.record(makeCall({ source: "agent:calm", outcome: "ok", at }));
        await ledger.record(makeCall({ source: "agent:shaky", outcome: "timeout", message: "slow", at }));
        await ledger.record(makeCall({ source: "agent:shaky", tool: "other", outcome: "ok", at }));
        await ledger.record(makeCall({ source: "agent:flaky", outcome: "crash", at }));
        await ledger.record(makeCall({ source: "agent:flaky", outcome: "crash", message: "segv", version: versionOf(7), at }));
        await ledger.quarantine("host:banned", { reason: "manual", actor: "ops" });
        const rows = await ledger.summary();
        assert.deepEqual(rows.map((row) => row.source), ["host:banned", "agent:flaky", "agent:shaky", "agent:calm"]);
        const flaky = rows[1];
        assert.equal(flaky?.totals.strikes, 2);
        assert.equal(flaky?.strikeRate, 1);
        assert.equal(flaky?.versions, 2);
        assert.equal(flaky?.lastVersion, versionOf(7));
        assert.equal(flaky?.lastStrike?.message, "segv");
        const shaky = rows[2];
        assert.equal(shaky?.strikeRate, 0.5);
        assert.deepEqual(shaky?.tools.map((tool) => [tool.tool, tool.totals.strikes, tool.strikeRate]), [["echo", 1, 1], ["other", 0, 0]]);
        assert.equal(rows[3]?.totals.calls, 4);
        assert.equal(rows[3]?.lastStrike, null);
      });
    });

    it("reports one source with its recent strikes; null for one never seen", async () => {
      await withLedger(async (ledger, clock) => {
        for (let i = 0; i < 12; i++) {
          clock.advance(11 * MINUTE_MS);
          await ledger.record(makeCall({ outcome: "timeout", callId: `t${i}`, message: `m${i}`, at: clock.now() }));
        }
        const report = await ledger.sourceReport("agent:alpha");
        assert.equal(report?.totals.strikes, 12);
        assert.equal(report?.strikes.length, 10, "the last 10 strikes are kept");
        assert.equal(report?.strikes[0]?.callId, "t11");
        assert.equal(report?.state.state, "active", "one strike per 11 minutes never fills the window");
        assert.equal((await ledger.sourceReport("agent:alpha", { strikes: 2 }))?.strikes.length, 2);
        assert.equal(await ledger.sourceReport("agent:ghost"), null);
      });
    });
  });

  runScriptCallsSuite(name, createStore, withStore);
  runToolCountsSuite(name, createStore, withStore);
}
