/**
 * Affinity: each tool's calls go to the worker that holds its warm isolate,
 * so small caches do not thrash; a hot tool still uses every worker; and a
 * slow call does not hold up the calls of other tools homed on its worker
 * while another worker is free.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf } from "../../src/index.js";
import { markedToolSource, markOf, toolSource, untilBothWorkersServe, withHost } from "../helpers/host.js";

describe("affinity", { timeout: 180_000 }, () => {
  it("four tools on two workers that keep two warm isolates each: after the first rounds every call is warm", async () => {
    await withHost(
      async (host) => {
        // Before both workers serve, every tool's home is the one that does.
        await untilBothWorkersServe(host);
        const names = ["aff_a", "aff_b", "aff_c", "aff_d"];
        for (const name of names) await host.load({ source: `agent:${name}`, code: markedToolSource(name) });
        const isolates = new Map<string, Set<string>>();
        for (let round = 0; round < 8; round++) {
          for (const name of names) {
            const result = await host.call(name, {});
            assert.equal(outcomeOf(result), "ok", JSON.stringify(result));
            assert.equal(typeof result.warm, "boolean");
            if (round > 1) assert.equal(result.warm, true, `${name} in round ${round} ran cold`);
            const mark = markOf(result);
            if (!isolates.has(name)) isolates.set(name, new Set());
            isolates.get(name)?.add(mark.isolate);
          }
        }
        // The boot tool's isolates, evicted as the tools load, can cost one move.
        for (const [name, seen] of isolates) assert.ok(seen.size <= 2, `${name} ran in ${seen.size} isolates`);
      },
      { workers: 2, maxWarmIsolates: 2 },
    );
  });

  it("a hot tool uses both workers: 64 calls in flight run in two isolates", async () => {
    await withHost(
      async (host) => {
        await untilBothWorkersServe(host, "hot");
      },
      { workers: 2, maxInFlight: 64 },
    );
  });

  it("head of line: while one worker runs a slow call, calls of tools homed there run on the other worker", async () => {
    await withHost(
      async (host) => {
        await host.load({
          source: "agent:slow",
          code: toolSource({ name: "slow", extra: "limits: { timeoutMs: 20000 },", run: "await new Promise((r) => setTimeout(r, 5000)); return Date.now();" }),
        });
        // Four more tools: their homes spread over both workers, so some share the slow tool's.
        const names = ["hol_a", "hol_b", "hol_c", "hol_d"];
        for (const name of names) await host.load({ source: `agent:${name}`, code: markedToolSource(name) });
        for (const name of names) assert.equal(outcomeOf(await host.call(name, {})), "ok");
        const slow = host.call("slow", {});
        let slowDone = false;
        void slow.then(() => (slowDone = true));
        // Not a timing assertion: the slow call has been sent and runs long past this.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const ends: number[] = [];
        for (let round = 0; round < 3; round++) {
          // Sequentially, one at a time, and then all at once.
          for (const name of names) {
            const result = await host.call(name, {});
            assert.equal(outcomeOf(result), "ok");
            ends.push(markOf(result).at);
          }
          const together = await Promise.all(names.map((name) => host.call(name, {})));
          for (const result of together) {
            assert.equal(outcomeOf(result), "ok");
            ends.push(markOf(result).at);
          }
        }
        assert.equal(slowDone, false, "every call of the other tools ended before the slow call");
        const slowResult = await slow;
        assert.equal(outcomeOf(slowResult), "ok");
        const slowEnd = Number(slowResult.ok ? slowResult.structured : 0);
        assert.ok(ends.every((at) => at < slowEnd));
      },
      { workers: 2 },
    );
  });
});
