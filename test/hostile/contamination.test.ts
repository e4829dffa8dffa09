/**
 * @module test/hostile/contamination.test
 * Contamination: a tool pollutes the built-ins of its own context
 * (Object.prototype, Array.prototype, JSON, Function.prototype, the global
 * object) and answers. After each case, a probe tool from another source in
 * the same host, and the same tool's next call in a fresh isolate (another
 * memory limit is another isolate), must both see pristine built-ins.
 * The cases are test/hostile/cases/contamination-*.ts.
 */
import assert from "node:assert/strict";
import { outcomeOf, type Host, type ToolResult } from "../../src/index.js";
import { caseFile, describeCategory } from "./harness.js";

const PROBE = "environment-probe";

function reportOf(result: ToolResult): string {
  assert.equal(outcomeOf(result), "ok", JSON.stringify(result));
  return result.ok ? result.output : "";
}

async function probeTwice(host: Host): Promise<void> {
  // Two at once: one lands on each worker.
  const [a, b] = await Promise.all([host.call(PROBE, {}), host.call(PROBE, {})]);
  assert.equal(reportOf(a), "clean", "a tool of another source saw polluted built-ins");
  assert.equal(reportOf(b), "clean", "a tool of another source saw polluted built-ins");
}

describeCategory("contamination", {
  async setup(shared) {
    const probe = await shared.host.load({ path: caseFile("_probe-tool.ts"), source: "plugin:probe" });
    assert.ok(probe.ok, JSON.stringify(probe));
    await probeTwice(shared.host);
  },
  async afterCase(shared, c) {
    const host = shared.host;
    await probeTwice(host);
    // The case's limits say 32 MB; 40 MB is another isolate key, so a fresh isolate.
    const fresh = await host.call(c.name, { mode: "check" }, { memoryMb: 40 });
    assert.equal(reportOf(fresh), "clean", `${c.name}: its next call in a fresh isolate saw its own pollution`);
    // And the probe can tell: polluting and checking in one call (in yet
    // another fresh isolate) is reported as not clean.
    const self = await host.call(c.name, { mode: "pollute-and-check" }, { memoryMb: 48 });
    assert.notEqual(reportOf(self), "clean", `${c.name}: the probe does not detect this pollution`);
  },
});
