/**
 * A tool's first isolate comes from a prepared one: the guest runtime run and
 * warmed on a tool of its own while the worker was idle. None of that may
 * show: the module's tools are exactly its own, and its first call carries
 * no log line, timer or tool it did not make.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { toolSource, withHost } from "../helpers/host.js";

const PROBE = toolSource({
  name: "probe",
  run: `console.log("mine");
    return { names: Object.getOwnPropertyNames(globalThis).filter((name) => /warm/i.test(name)), timers: typeof setTimeout };`,
});

describe("prepared isolates", { timeout: 120_000 }, () => {
  it("leave no trace of their warm-up in the tool's describe or first call", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:probe", code: PROBE });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      assert.deepEqual(
        host.tools().filter((tool) => tool.source === "agent:probe").map((tool) => tool.name),
        ["probe"],
      );
      const first = await host.call("probe", {});
      assert.ok(first.ok, JSON.stringify(first));
      assert.deepEqual(first.structured, { names: [], timers: "function" });
      assert.deepEqual(first.logs, ["[log] mine"]);
      assert.doesNotMatch(JSON.stringify(first), /corral_warm_up|warms the runtime/);
    });
  });
});
