/**
 * @module src/ledger/script-calls.case
 * The script-call counters (script-calls.ts) as every LedgerStore must keep
 * them, run by store.case.ts for each store: counted from each record's
 * `via` (and only from it), per (script source, tool source, tool, outcome
 * kind), in records committed one by one or together, and answered both
 * ways with the database's own limit.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ledger } from "./ledger.js";
import { InvalidCallRecordError } from "./errors.js";
import type { LedgerStore } from "./store.js";
import { T0, makeCall } from "./testing/fixtures.js";
import type { CallRecord } from "./types.js";

type StoreFactory = () => LedgerStore | Promise<LedgerStore>;
/** store.case.ts's: a fresh store for `work`, closed after it. */
type WithStore = (work: (store: LedgerStore) => Promise<void>) => Promise<void>;

const keepAll = { keepStrikes: 10, decide: () => null };

/**
 * code:a calls add (agent:m) 5 times (3 ok, 1 timeout, 1 tool_error) and
 * shout (agent:w) once; code:b calls add twice (ok, crash); one call of add
 * no script made. Calls of one tool and outcome from two script sources
 * come in a row, so a store that counted them as one run would be wrong.
 */
function plan(): CallRecord[] {
  const add = (via: string | undefined, outcome: CallRecord["outcome"], at: number) =>
    makeCall({ source: "agent:m", tool: "add", outcome, at, ...(via !== undefined ? { via } : {}), ...(outcome === "ok" ? {} : { message: "no" }) });
  return [
    add("code:a", "ok", T0 + 1),
    add("code:b", "ok", T0 + 2),
    add("code:a", "ok", T0 + 3),
    add(undefined, "ok", T0 + 4),
    add("code:a", "ok", T0 + 5),
    add("code:a", "timeout", T0 + 6),
    add("code:a", "tool_error", T0 + 7),
    makeCall({ source: "agent:w", tool: "shout", outcome: "ok", at: T0 + 8, via: "code:a" }),
    add("code:b", "crash", T0 + 9),
  ];
}

export function runScriptCallsSuite(name: string, createStore: StoreFactory, withStore: WithStore): void {
  async function checkCounts(store: LedgerStore): Promise<void> {
    const a = await store.readScriptTools("code:a", 10);
    assert.equal(a.total, 2);
    const byKey = (counts: typeof a.counts) => counts.map((c) => `${c.script} ${c.source} ${c.tool} ${c.outcome} ${c.calls} ${c.strikes} ${c.lastAt - T0}`).sort();
    assert.deepEqual(byKey(a.counts), [
      "code:a agent:m add ok 3 0 5",
      "code:a agent:m add timeout 1 1 6",
      "code:a agent:m add tool_error 1 0 7",
      "code:a agent:w shout ok 1 0 8",
    ]);
    // The limit counts tools, and a tool comes with every one of its kinds: add has the strike, so it is first.
    const first = await store.readScriptTools("code:a", 1);
    assert.equal(first.total, 2);
    assert.deepEqual(byKey(first.counts), byKey(a.counts).filter((line) => line.includes(" add ")));

    const callers = await store.readScriptCallers("agent:m", 10);
    assert.deepEqual(callers, {
      total: 2,
      rows: [
        // Most strikes first: each has one; then most calls.
        { script: "code:a", calls: 5, strikes: 1, lastAt: T0 + 7 },
        { script: "code:b", calls: 2, strikes: 1, lastAt: T0 + 9 },
      ],
    });
    assert.deepEqual(await store.readScriptCallers("agent:m", 1), { total: 2, rows: callers.rows.slice(0, 1) });
    assert.deepEqual(await store.readScriptCallers("agent:w", 10), { total: 1, rows: [{ script: "code:a", calls: 1, strikes: 0, lastAt: T0 + 8 }] });
    assert.deepEqual(await store.readScriptTools("code:nobody", 10), { total: 0, counts: [] });
    assert.deepEqual(await store.readScriptCallers("agent:nobody", 10), { total: 0, rows: [] });
    // The tools' own counters count every call, scripts' or not.
    const m = (await store.listSources()).find((source) => source.state.source === "agent:m");
    assert.equal(m?.tools.find((tool) => tool.tool === "add")?.totals.calls, 8);
  }

  describe(`${name}: what Code Mode scripts called`, { timeout: 60_000 }, () => {
    it("counts each script source's calls per tool source, tool and outcome, one record at a time", () =>
      withStore(async (store) => {
        for (const call of plan()) await store.recordCall(call, keepAll);
        await checkCounts(store);
      }));

    it("counts them alike when the records arrive together and share a commit", () =>
      withStore(async (store) => {
        await Promise.all(plan().map((call) => store.recordCall(call, { ...keepAll, behind: true })));
        await checkCounts(store);
      }));

    it("answers through the Ledger: one row per tool with its outcomes, strikes first; checked arguments", async () => {
      const ledger = new Ledger({ store: await createStore(), policy: { strikes: 1_000 } });
      try {
        for (const call of plan()) await ledger.record(call);
        const report = await ledger.scriptTools("code:a");
        assert.deepEqual(report, {
          script: "code:a",
          total: 2,
          rows: [
            { source: "agent:m", tool: "add", calls: 5, strikes: 1, outcomes: { ok: 3, tool_error: 1, timeout: 1 }, lastAt: T0 + 7 },
            { source: "agent:w", tool: "shout", calls: 1, strikes: 0, outcomes: { ok: 1 }, lastAt: T0 + 8 },
          ],
        });
        assert.deepEqual((await ledger.scriptTools("code:a", { limit: 1 })).rows.map((row) => row.tool), ["add"]);
        assert.equal((await ledger.scriptCallers("agent:m", { limit: 1 })).total, 2);
        await assert.rejects(ledger.scriptTools("code:a", { limit: 0 }), (error: Error & { code?: string }) => error.code === "invalid_argument");
        await assert.rejects(ledger.scriptCallers("nope"), (error: Error & { code?: string }) => error.code === "invalid_source");
        // A script's source is a code: source: a record naming another kind is refused, and nothing is counted.
        await assert.rejects(ledger.record(makeCall({ via: "agent:m" })), InvalidCallRecordError);
        assert.equal((await ledger.scriptCallers("agent:alpha")).total, 0);
      } finally {
        await ledger.close();
      }
    });
  });
}
