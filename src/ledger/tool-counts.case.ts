/**
 * @module src/ledger/tool-counts.case
 * What every LedgerStore keeps of a tool beyond its totals, run by
 * store.case.ts for each store: its calls, non-ok calls and strikes per
 * version (across a change of version and back, in records committed one by
 * one or together), and its latest non-ok calls with their messages; then
 * what the Ledger makes of them (error rates, the order of trouble, capped
 * messages).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ledger } from "./ledger.js";
import type { LedgerStore, StoredTool } from "./store.js";
import { T0, makeCall, versionOf } from "./testing/fixtures.js";
import { ERRORS_KEPT_PER_TOOL, MAX_MESSAGE_CHARS, type CallRecord } from "./types.js";

type StoreFactory = () => LedgerStore | Promise<LedgerStore>;
/** store.case.ts's: a fresh store for `work`, closed after it. */
type WithStore = (work: (store: LedgerStore) => Promise<void>) => Promise<void>;

const keepAll = { keepStrikes: 10, decide: () => null };
const V1 = versionOf(1);
const V2 = versionOf(2);

/** Tool a at v1, then v2, then v1 again; tool b at v2 only. */
function versionPlan(): CallRecord[] {
  const a = (version: string, outcome: CallRecord["outcome"], at: number) => makeCall({ tool: "a", version, outcome, at, ...(outcome === "ok" ? {} : { message: `${outcome} at ${at}` }) });
  return [
    a(V1, "ok", T0 + 1), a(V1, "ok", T0 + 2), a(V1, "tool_error", T0 + 3),
    a(V2, "ok", T0 + 4), a(V2, "crash", T0 + 5), a(V2, "ok", T0 + 6),
    makeCall({ tool: "b", version: V2, outcome: "invalid_input", message: "no", at: T0 + 7 }),
    a(V1, "ok", T0 + 8), a(V1, "blocked", T0 + 9),
  ];
}

function versionsOf(tool: StoredTool | undefined): [string, number, number, number, number | null][] {
  return (tool?.versions ?? []).map((v): [string, number, number, number, number | null] => [v.version, v.calls, v.errors, v.strikes, v.firstSeenAt]).sort((x, y) => (x[0] < y[0] ? -1 : 1));
}

const sortedByVersion = (rows: [string, number, number, number, number | null][]) => [...rows].sort((x, y) => (x[0] < y[0] ? -1 : 1));

export function runToolCountsSuite(name: string, createStore: StoreFactory, withStore: WithStore): void {
  async function withLedger(work: (ledger: Ledger) => Promise<void>): Promise<void> {
    const ledger = new Ledger({ store: await createStore(), now: () => T0 });
    try {
      await work(ledger);
    } finally {
      await ledger.close();
    }
  }

  describe(`${name}: each tool's counts per version and its latest errors`, { timeout: 60_000 }, () => {
    for (const together of [false, true]) {
      it(`counts calls, non-ok calls and strikes per version, across a change of version and back (records ${together ? "committed together" : "one by one"})`, async () => {
        await withStore(async (store) => {
          const plan = versionPlan();
          if (together) await Promise.all(plan.map((call) => store.recordCall(call, keepAll)));
          else for (const call of plan) await store.recordCall(call, keepAll);
          const expectA = sortedByVersion([[V1, 5, 2, 0, T0 + 1], [V2, 3, 1, 1, T0 + 4]]);
          const expectB = [[V2, 1, 1, 0, T0 + 4]];
          const [listed] = await store.listSources();
          assert.deepEqual(versionsOf(listed?.tools.find((tool) => tool.tool === "a")), expectA);
          assert.deepEqual(versionsOf(listed?.tools.find((tool) => tool.tool === "b")), expectB);
          const detail = await store.readSource("agent:alpha", { events: 1, strikes: 1 });
          assert.deepEqual(versionsOf(detail?.tools.find((tool) => tool.tool === "a")), expectA);
          assert.deepEqual(versionsOf(detail?.tools.find((tool) => tool.tool === "b")), expectB);
          // The totals still span every version.
          assert.deepEqual([listed?.tools.find((tool) => tool.tool === "a")?.totals.calls, listed?.tools.find((tool) => tool.tool === "a")?.totals.strikes], [8, 1]);
        });
      });
    }

    it("a load makes a tool known with no version counted; its first call counts at the call's version", async () => {
      await withStore(async (store) => {
        await store.recordLoad({ source: "agent:alpha", version: V1, tools: ["a"], at: T0 });
        assert.deepEqual(versionsOf((await store.readSource("agent:alpha", { events: 1, strikes: 1 }))?.tools[0]), []);
        await store.recordCall(makeCall({ tool: "a", version: V1, at: T0 + 1 }), keepAll);
        assert.deepEqual(versionsOf((await store.readSource("agent:alpha", { events: 1, strikes: 1 }))?.tools[0]), [[V1, 1, 0, 0, T0]]);
      });
    });

    it(`keeps each tool's latest ${ERRORS_KEPT_PER_TOOL} non-ok calls with their messages, newest first; ok calls keep none`, async () => {
      await withStore(async (store) => {
        for (let i = 0; i < 3; i++) await store.recordCall(makeCall({ tool: "a", at: T0 + i }), keepAll);
        assert.deepEqual((await store.readSource("agent:alpha", { events: 1, strikes: 1 }))?.tools[0]?.lastErrors, []);
        const kinds = ["tool_error", "invalid_input", "blocked", "cancelled", "busy", "timeout", "tool_error", "tool_error"] as const;
        const errors = kinds.map((outcome, i) =>
          makeCall({ tool: "a", outcome, message: `m${i}`, callId: `e${i}`, at: T0 + 10 + i, version: i < 4 ? V1 : V2, ...(i === 6 ? { caller: "mcp:s1" } : {}) }),
        );
        // The first four one by one; the rest together, so that the two tool_errors at the end are one run of two.
        for (const call of errors.slice(0, 4)) await store.recordCall(call, keepAll);
        await Promise.all([...errors.slice(4), makeCall({ tool: "b", outcome: "busy", message: "b's", callId: "b0", at: T0 + 30 })].map((call) => store.recordCall(call, keepAll)));
        for (const read of [async () => (await store.listSources())[0], () => store.readSource("agent:alpha", { events: 1, strikes: 1 })]) {
          const tools = (await read())?.tools ?? [];
          const a = tools.find((tool) => tool.tool === "a");
          assert.deepEqual(a?.lastErrors.map((error) => [error.callId, error.outcome, error.message, error.version]), [
            ["e7", "tool_error", "m7", V2], ["e6", "tool_error", "m6", V2], ["e5", "timeout", "m5", V2], ["e4", "busy", "m4", V2], ["e3", "cancelled", "m3", V1],
          ]);
          assert.deepEqual(a?.lastErrors[1], { at: T0 + 16, version: V2, callId: "e6", outcome: "tool_error", message: "m6", caller: "mcp:s1" });
          assert.deepEqual(tools.find((tool) => tool.tool === "b")?.lastErrors.map((error) => error.callId), ["b0"], "kept per tool: a's errors do not push b's out");
        }
      });
    });

    it("reports a tool that failed 4 of its 12 calls at a 33 % error rate with its messages, and ranks its source above healthier ones", async () => {
      await withLedger(async (ledger) => {
        for (let i = 0; i < 12; i++) {
          await ledger.record({ ...makeCall({ source: "agent:flaky", tool: "parse", at: T0 + i }), ...(i % 3 === 2 ? { outcome: "tool_error" as const, message: `bad row ${i}` } : {}) });
        }
        for (let i = 0; i < 20; i++) await ledger.record(makeCall({ source: "agent:healthy", tool: "echo", at: T0 + i }));
        for (let i = 0; i < 19; i++) await ledger.record(makeCall({ source: "agent:busy", tool: "echo", at: T0 + i }));
        await ledger.record(makeCall({ source: "agent:busy", tool: "echo", outcome: "busy", message: "queue full", at: T0 + 19 }));
        for (let i = 0; i < 99; i++) await ledger.record(makeCall({ source: "agent:striker", tool: "loop", at: T0 + i }));
        await ledger.record(makeCall({ source: "agent:striker", tool: "loop", outcome: "timeout", message: "slow", at: T0 + 99 }));
        await ledger.record(makeCall({ source: "agent:lengthy", tool: "say", outcome: "tool_error", message: "x".repeat(MAX_MESSAGE_CHARS * 3), at: T0 }));
        await ledger.quarantine("agent:healthy", { reason: "by hand", actor: "tester" });

        const summary = await ledger.summary();
        assert.deepEqual(summary.map((row) => row.source), ["agent:healthy", "agent:striker", "agent:lengthy", "agent:flaky", "agent:busy"]);
        const flaky = summary.find((row) => row.source === "agent:flaky");
        assert.equal(Math.round((flaky?.errorRate ?? 0) * 100), 33);
        assert.equal(flaky?.tools[0]?.errorRate, 4 / 12);
        assert.deepEqual(flaky?.tools[0]?.totals.outcomes.tool_error, 4);
        const report = await ledger.sourceReport("agent:flaky");
        assert.equal(report?.errorRate, 4 / 12);
        assert.deepEqual(report?.tools[0]?.lastErrors.map((error) => error.message), ["bad row 11", "bad row 8", "bad row 5", "bad row 2"]);
        assert.deepEqual(report?.tools[0]?.versions, [{ version: V1, calls: 12, errors: 4, strikes: 0, firstSeenAt: T0 }]);
        assert.equal((await ledger.sourceReport("agent:lengthy"))?.tools[0]?.lastErrors[0]?.message.length, MAX_MESSAGE_CHARS, "a message is kept capped");
      });
    });
  });
}
