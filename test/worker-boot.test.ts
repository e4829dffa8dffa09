/**
 * @module test/worker-boot.test
 * A worker's boot (Node, isolated-vm, zod, the runtime bundle: about a
 * second on a small machine) is never charged to a tool: the first load on a
 * new host gets its whole load limit, and after the watchdog kills a worker
 * the next call is answered quickly (DESIGN target: within 300 ms).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf } from "../src/index.js";
import { toolSource, withHost } from "./helpers/host.js";


const quick = (name: string) => toolSource({ name, run: "return 'fast';", extra: "limits: { timeoutMs: 300 }," });

describe("worker boot and replacement", { timeout: 60_000 }, () => {
  it("a load limit shorter than the worker's own runtime takes to start (1 ms) does not kill workers at boot: loads are answered as timeouts", async () => {
    // Found by the fuzz campaign on a busy machine: the worker made its first
    // blank isolate under loadTimeoutMs at boot, and a runtime that took
    // longer threw there, so every worker died before serving and every call
    // waited for ever.
    await withHost(
      async (host) => {
        for (const name of ["tiny_limit_a", "tiny_limit_b"]) {
          const loaded = await host.load({ source: `agent:${name}`, code: quick(name) });
          assert.equal(loaded.ok, false, JSON.stringify(loaded));
          assert.ok(!loaded.ok && loaded.error.kind === "timeout", JSON.stringify(loaded));
        }
      },
      { workers: 1, loadTimeoutMs: 1 },
    );
  });

  it("the first load on a new host gets its whole load limit (300 ms for a module that loads in ~10 ms)", async () => {
    await withHost(
      async (host) => {
        const loaded = await host.load({ source: "agent:first", code: quick("first") });
        assert.equal(loaded.ok, true, JSON.stringify(loaded));
        const call = await host.call("first", {});
        assert.equal(outcomeOf(call), "ok", JSON.stringify(call));
      },
      { workers: 1, loadTimeoutMs: 300 },
    );
  });

  it("after a worker is killed, the next call is answered by its replacement (time reported, not asserted)", async (t) => {
    await withHost(
      async (host) => {
        assert.ok((await host.load({ source: "agent:quick", code: quick("quick") })).ok);
        assert.ok((await host.load({ source: "agent:spin", code: toolSource({ name: "spin", extra: "limits: { timeoutMs: 5000 },", run: "for (;;) {}" }) })).ok);
        assert.equal(outcomeOf(await host.call("quick", {})), "ok");
        // Cancelling a running call kills its worker: the only worker here.
        const cancel = new AbortController();
        const doomed = host.call("spin", {}, { signal: cancel.signal });
        setTimeout(() => cancel.abort(), 100);
        const killed = await doomed;
        assert.equal(outcomeOf(killed), "cancelled");
        assert.ok(!killed.ok && /worker was stopped/.test(killed.error.message), "the worker was killed, not just the isolate");
        const started = performance.now();
        const next = await host.call("quick", {});
        assert.equal(outcomeOf(next), "ok", JSON.stringify(next));
        // Speed belongs to the benchmarks (npm run bench); here it is only reported.
        t.diagnostic(`the next call after the kill took ${Math.round(performance.now() - started)} ms`);
      },
      { workers: 1 },
    );
  });
});
