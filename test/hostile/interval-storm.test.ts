/**
 * @module test/hostile/interval-storm.test
 * A regression kept apart from its category so that a failure is certain
 * rather than occasional: async-interval-storm, called 8 times, must be a
 * timeout each time. It once killed its worker with SIGSEGV about one call in
 * four: guest timers fired through applySync, and tens of thousands of
 * synchronous entries with short timeouts raced isolated-vm 5's timer thread
 * (heap corruption while it freed a RunWithTimeout timer). Timers now fire
 * through the async apply (sandbox/worker/tool-isolate.ts #schedule).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { listCases, loadBenign, runCase, sharedHost } from "./harness.js";

describe("interval storm regression", { timeout: 120_000 }, () => {
  const shared = sharedHost();
  before(async () => {
    await shared.start();
    await loadBenign(shared.host);
  });
  after(() => shared.stop());

  it("async-interval-storm → timeout, 8 calls in a row, never a crash of the worker", async (t) => {
    const storm = listCases("async").find((c) => c.name === "async-interval-storm");
    assert.ok(storm !== undefined, "the case file async-interval-storm.ts is missing");
    await runCase(shared, { ...storm, repeat: 8 }, t);
  });
});
