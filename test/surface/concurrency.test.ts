/**
 * Back-pressure and cancellation: a bounded queue answers `busy` at once,
 * per-tool limits hold, an aborted call ends promptly as `cancelled` (its
 * isolate gone with its worker), close() settles everything, and a worker's
 * death costs only the call it was running.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

const sleeper = (name: string, ms: number) =>
  toolSource({ name, extra: "limits: { timeoutMs: 5000 },", run: `await new Promise((r) => setTimeout(r, ${ms})); return Date.now();` });

describe("concurrency and back-pressure", { timeout: 180_000 }, () => {
  it("past the queue a call is busy at once; the admitted ones complete", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:slow", code: sleeper("slow", 300) });
        const calls = Array.from({ length: 5 }, () => host.call("slow", {}));
        const outcomes = (await Promise.all(calls)).map(outcomeOf);
        assert.deepEqual(outcomes, ["ok", "ok", "ok", "busy", "busy"]);
        const busy = await Promise.all([host.call("slow", {}), host.call("slow", {}), host.call("slow", {}), host.call("slow", {})]);
        const refused = busy.find((r) => !r.ok);
        assert.ok(refused && !refused.ok && /retry later/.test(refused.error.message));
      },
      { workers: 1, maxInFlight: 1, maxQueue: 2 },
    );
  });

  it("maxInFlightPerTool keeps one tool from taking every slot", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:a", code: sleeper("hog", 400) });
        await host.load({ source: "agent:b", code: sleeper("other", 10) });
        const hogs = [host.call("hog", {}), host.call("hog", {}), host.call("hog", {})];
        await new Promise((resolve) => setTimeout(resolve, 50));
        const other = await host.call("other", {});
        assert.equal(outcomeOf(other), "ok");
        const hogResults = await Promise.all(hogs);
        assert.ok(hogResults.every((r) => r.ok));
        // "other" finished before the third hog could even start
        const lastHogEnd = Math.max(...hogResults.map((r) => (r.ok ? Number(r.structured) : 0)));
        assert.ok(other.ok && Number(other.structured) < lastHogEnd);
      },
      { workers: 2, maxInFlight: 2, maxInFlightPerTool: 1 },
    );
  });

  it("an aborted call answers cancelled promptly, queued or running; the next call works", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:spin", code: toolSource({ name: "spin", extra: "limits: { timeoutMs: 5000 },", run: "for (;;) {}" }) });
        await host.load({ source: "agent:ok", code: toolSource({ name: "fine", run: "return 'fine';" }) });
        const running = new AbortController();
        const queued = new AbortController();
        const first = host.call("spin", {}, { signal: running.signal });
        const second = host.call("fine", {}, { signal: queued.signal });
        await new Promise((resolve) => setTimeout(resolve, 100));
        queued.abort();
        running.abort();
        const [a, b] = await Promise.all([first, second]);
        assert.equal(outcomeOf(a), "cancelled");
        assert.equal(outcomeOf(b), "cancelled");
        assert.equal(outcomeOf(await host.call("fine", {})), "ok");
        const already = new AbortController();
        already.abort();
        assert.equal(outcomeOf(await host.call("fine", {}, { signal: already.signal })), "cancelled");
      },
      { workers: 1, maxInFlight: 1 },
    );
  });

  it("a call sent ahead and then cancelled is not run: the call behind it does not wait for it", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:a", code: sleeper("short_one", 200) });
        await host.load({ source: "agent:b", code: sleeper("long_one", 4000) });
        await host.load({ source: "agent:c", code: toolSource({ name: "after", run: "return Date.now();" }) });
        const first = host.call("short_one", {});
        const cancel = new AbortController();
        const ahead = host.call("long_one", {}, { signal: cancel.signal });
        await new Promise((resolve) => setTimeout(resolve, 50));
        cancel.abort();
        assert.equal(outcomeOf(await ahead), "cancelled");
        const firstDone = await first;
        assert.ok(firstDone.ok);
        const next = await host.call("after", {});
        assert.ok(next.ok);
        // The tools' own clocks: had the cancelled 4 s call run in between,
        // "after" would have started at least 4 s after short_one ended.
        assert.ok(Number(next.structured) - Number(firstDone.structured) < 3000, "the cancelled call ran in the worker");
        const longRuns = (await host.audit()).find((r) => r.source === "agent:b");
        assert.equal(longRuns?.totals.outcomes.ok ?? 0, 0, "long_one never ran to completion");
      },
      { workers: 1, spareWorkers: 0, pipelineDepth: 2, maxInFlight: 2 },
    );
  });

  it("close() settles calls in flight and waiting as cancelled, and a closed host refuses use", async () => {
    let host!: import("../../src/index.js").Host;
    const pending: Promise<unknown>[] = [];
    await withHost(
      async (h) => {
        host = h;
        await h.load({ source: "agent:slow", code: sleeper("slow", 2000) });
        for (let i = 0; i < 3; i++) pending.push(h.call("slow", {}));
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
      { workers: 1, maxInFlight: 1 },
    );
    const outcomes = (await Promise.all(pending)).map((r) => outcomeOf(r as never));
    assert.deepEqual(outcomes, ["cancelled", "cancelled", "cancelled"]);
    assert.equal(host.alive, false);
    await assert.rejects(() => host.call("slow", {}), (error: Error & { code?: string }) => error.code === "host_closed");
  });

  it("a worker's death costs only its own call: another tool's calls on the other worker complete", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:spin", code: toolSource({ name: "spin", extra: "limits: { timeoutMs: 5000 },", run: "for (;;) {}" }) });
        await host.load({ source: "agent:slow", code: sleeper("steady", 100) });
        const kill = new AbortController();
        const doomed = host.call("spin", {}, { signal: kill.signal });
        const others = Array.from({ length: 6 }, () => host.call("steady", {}));
        setTimeout(() => kill.abort(), 150);
        assert.equal(outcomeOf(await doomed), "cancelled");
        assert.deepEqual((await Promise.all(others)).map(outcomeOf), ["ok", "ok", "ok", "ok", "ok", "ok"]);
      },
      { workers: 2 },
    );
  });
});
