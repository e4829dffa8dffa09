/**
 * Calls sent ahead to a worker whose running call turned slow are taken back
 * and run by another worker: a quick tool that hangs once must not hold the
 * calls queued behind it for its whole run. Each call is still recorded once.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Host } from "../../src/index.js";
import { untilBothWorkersServe, withHost } from "../helpers/host.js";

// Synchronous work: the worker's thread is held while it spins, so only the host can move what waits behind it.
const FLIP = `import { defineTool } from "corral";
import { z } from "zod";
// Each isolate numbers its runs: a run nobody saw (a call run twice) leaves a gap.
const isolate = Math.random();
let runs = 0;
export default defineTool({
  name: "flip", description: "answers at once, or spins for ms", input: z.object({ ms: z.number() }), effects: [],
  limits: { timeoutMs: 10000 },
  run: ({ ms }) => { runs += 1; const start = Date.now(); while (Date.now() - start < ms) {} return { end: Date.now(), isolate, runs }; },
});
`;

type Flip = { end: number; isolate: number; runs: number };
const flipOf = (result: { ok: boolean; structured?: unknown }): Flip => (result.ok ? (result.structured as Flip) : { end: Number.NaN, isolate: Number.NaN, runs: Number.NaN });
const endOf = (result: { ok: boolean; structured?: unknown }) => flipOf(result).end;

/** In every isolate seen, the runs answered are 1..n: no run went unanswered (a call run twice, or a task run for nobody). */
function assertEveryRunAnswered(results: { ok: boolean; structured?: unknown }[]): void {
  const runsByIsolate = new Map<number, number[]>();
  for (const { isolate, runs } of results.filter((result) => result.ok).map(flipOf)) runsByIsolate.set(isolate, [...(runsByIsolate.get(isolate) ?? []), runs]);
  for (const runs of runsByIsolate.values()) {
    const seen = runs.sort((a, b) => a - b);
    assert.deepEqual(seen, seen.map((_, i) => i + 1), `runs of one isolate: ${seen.join(", ")}`);
  }
}

type Result = Awaited<ReturnType<Host["call"]>>;

/**
 * Loads flip, calls it quick 12 times in a row (its calls are then sent many
 * deep to its home worker), then one slow call and, in the same turn, 10 quick
 * ones: most are sent ahead behind the slow one.
 */
async function slowAmongQuick(host: Host, slowMs: number, signal?: AbortSignal): Promise<{ warm: Result[]; slow: Promise<Result>; quick: Result[] }> {
  // The calls taken back need a second worker that serves.
  await untilBothWorkersServe(host);
  assert.ok((await host.load({ source: "agent:flip", code: FLIP })).ok);
  const warm: Result[] = [];
  for (let i = 0; i < 12; i++) warm.push(await host.call("flip", { ms: 0 }));
  const slow = host.call("flip", { ms: slowMs }, signal === undefined ? {} : { signal });
  const quick = await Promise.all(Array.from({ length: 10 }, () => host.call("flip", { ms: 0 })));
  assert.ok([...warm, ...quick].every((result) => result.ok), JSON.stringify(quick));
  return { warm, slow, quick };
}

/** Five more calls, one at a time. */
async function fiveMore(host: Host): Promise<Result[]> {
  const after: Result[] = [];
  for (let i = 0; i < 5; i++) after.push(await host.call("flip", { ms: 0 }));
  assert.ok(after.every((result) => result.ok), "the pool serves on");
  return after;
}

describe("taking back calls from a stalled worker", { timeout: 120_000 }, () => {
  it("calls queued behind a quick tool's one slow call end before it, elsewhere, run once and are recorded once", async () => {
    await withHost(
      async (host) => {
        const { warm, slow, quick: quickResults } = await slowAmongQuick(host, 1500);
        const slowResult = await slow;
        assert.ok(slowResult.ok, JSON.stringify(slowResult));
        const slowEnd = endOf(slowResult);
        for (const result of quickResults) assert.ok(endOf(result) < slowEnd, `a quick call ended at ${endOf(result)}, the slow one at ${slowEnd}`);
        // The stalled worker skipped the calls taken from it: in every isolate, each run was someone's answer.
        const after = await fiveMore(host);
        assertEveryRunAnswered([...warm, slowResult, ...quickResults, ...after]);
        const row = (await host.audit()).find((r) => r.source === "agent:flip");
        assert.equal(row?.totals.calls, 12 + 1 + 10 + 5);
        assert.equal(row?.totals.outcomes.ok, 28);
      },
      { workers: 2 },
    );
  });

  it("a stalled worker killed after its calls were taken back: each of them answers once, from elsewhere", async () => {
    await withHost(
      async (host) => {
        const controller = new AbortController();
        const { warm, slow, quick: quickResults } = await slowAmongQuick(host, 5000, controller.signal);
        // Cancelling the running call kills its worker; the ghosts left there are not orphans to run again.
        controller.abort();
        const slowResult = await slow;
        assert.equal(slowResult.ok ? "ok" : slowResult.error.kind, "cancelled");
        const after = await fiveMore(host);
        // The killed worker's isolate is gone; in the others, nothing ran that nobody was answered.
        assertEveryRunAnswered([...warm, ...quickResults, ...after]);
        const row = (await host.audit()).find((r) => r.source === "agent:flip");
        assert.equal(row?.totals.calls, 12 + 1 + 10 + 5);
        assert.equal(row?.totals.outcomes.ok, 27);
        assert.equal(row?.totals.outcomes.cancelled, 1);
      },
      { workers: 2 },
    );
  });
});
