/**
 * @module test/worker-boot.test
 * A worker's boot (Node, isolated-vm, zod, the runtime bundle: about a
 * second on a small machine) is never charged to a tool: the first load on a
 * new host gets its whole load limit, and after the watchdog kills a worker
 * the next call is answered quickly (DESIGN target: within 300 ms).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { outcomeOf } from "../src/index.js";
import { toolSource, withHost } from "./helpers/host.js";

const NATIVE_SORT_CASE = fileURLToPath(new URL("../../test/hostile/cases/crash-typed-array-sort.ts", import.meta.url));

const quick = (name: string) => toolSource({ name, run: "return 'fast';", extra: "limits: { timeoutMs: 300 }," });

describe("worker boot and replacement", { timeout: 60_000 }, () => {
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

  it("after the watchdog kills a worker, the next call is answered within 300 ms", async () => {
    await withHost(
      async (host) => {
        assert.ok((await host.load({ source: "agent:quick", code: quick("quick") })).ok);
        assert.ok((await host.load({ path: NATIVE_SORT_CASE })).ok);
        assert.equal(outcomeOf(await host.call("quick", {})), "ok");
        // A native sort the isolate cannot interrupt: only the watchdog's kill ends it.
        const killed = await host.call("crash-typed-array-sort", {});
        assert.equal(outcomeOf(killed), "timeout");
        assert.ok(!killed.ok && /killed/.test(killed.error.message), "the worker was killed, not just the isolate");
        const started = performance.now();
        const next = await host.call("quick", {});
        const elapsedMs = performance.now() - started;
        assert.equal(outcomeOf(next), "ok", JSON.stringify(next));
        assert.ok(elapsedMs < 300, `the next call took ${Math.round(elapsedMs)} ms`);
      },
      { workers: 1 },
    );
  });
});
