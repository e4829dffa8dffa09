/**
 * Host events: every call tells its start, its running and its end (with the
 * whole result, details included); crashes and quarantines are told too.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf, type HostEvent } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

describe("host events", { timeout: 120_000 }, () => {
  it("a call emits start, running and end in order; end carries details the model never sees", async () => {
    const events: HostEvent[] = [];
    await withHost(
      async (host) => {
        await host.load({
          source: "agent:rich",
          code: toolSource({ name: "rich", top: 'import { toolResult } from "corral";', run: "return toolResult({ text: 'short', details: { rows: [1, 2, 3] } });" }),
        });
        const result = await host.call("rich", {});
        assert.ok(result.ok);
        assert.equal(result.output, "short");
        const mine = events.filter((e) => "callId" in e && e.callId === result.callId).map((e) => e.type);
        assert.deepEqual(mine, ["tool_execution_start", "tool_running", "tool_execution_end"]);
        const end = events.find((e) => e.type === "tool_execution_end");
        assert.ok(end?.type === "tool_execution_end" && end.result.ok);
        assert.deepEqual(end.result.ok && end.result.details, { rows: [1, 2, 3] });
      },
      { onEvent: (event) => events.push(event) },
    );
  });

  it("host.on adds and removes listeners; a listener that throws breaks nothing", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:a", code: toolSource({ name: "a", run: "return 1;" }) });
      const seen: string[] = [];
      const off = host.on((event) => seen.push(event.type));
      host.on(() => {
        throw new Error("a faulty screen");
      });
      assert.equal(outcomeOf(await host.call("a", {})), "ok");
      off();
      assert.equal(outcomeOf(await host.call("a", {})), "ok");
      assert.deepEqual(seen, ["tool_execution_start", "tool_running", "tool_execution_end"]);
    });
  });

  it("an unknown tool gets start and end but never running", async () => {
    const events: HostEvent[] = [];
    await withHost(async (host) => {
      host.on((event) => events.push(event));
      const result = await host.call("nope", {});
      assert.equal(outcomeOf(result), "unknown_tool");
      assert.deepEqual(events.map((e) => e.type), ["tool_execution_start", "tool_execution_end"]);
    });
  });

  it("quarantine and release are events", async () => {
    const events: HostEvent[] = [];
    await withHost(
      async (host) => {
        await host.quarantine("agent:x", { reason: "by hand" });
        await host.release("agent:x");
        const kinds = events.filter((e) => e.type === "quarantine" || e.type === "release");
        assert.equal(kinds.length, 2);
        assert.ok(kinds[0]?.type === "quarantine" && kinds[0].source === "agent:x" && kinds[0].reason === "by hand");
        assert.ok(kinds[1]?.type === "release" && kinds[1].source === "agent:x");
      },
      { onEvent: (event) => events.push(event) },
    );
  });
});
