/**
 * Exposure, declarations and tool_search: what a model is told about, and
 * how a deferred tool is found and activated.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

const exposed = (name: string, exposure: string, description = `test tool ${name}`) =>
  toolSource({ name, extra: `exposure: "${exposure}",`, run: `return "${name} ran";` }).replace(`test tool ${name}`, description);

describe("declarations and tool_search", { timeout: 120_000 }, () => {
  it("declares direct and model_only tools, not hidden, codemode or (until activated) deferred ones", async () => {
    await withHost(async (host) => {
      for (const [name, exposure] of [["d1", "direct"], ["m1", "model_only"], ["h1", "hidden"], ["c1", "codemode"], ["f1", "deferred"]]) {
        assert.ok((await host.load({ source: `agent:${name}`, code: exposed(name as string, exposure as string) })).ok);
      }
      const names = host.declarations().map((d) => d.name).sort();
      assert.deepEqual(names, ["d1", "m1", "tool_search"]);
      const declaration = host.declarations().find((d) => d.name === "d1");
      assert.equal(declaration?.description, "test tool d1");
      assert.equal((declaration?.input_schema as { type?: string }).type, "object");
      assert.deepEqual(host.declarations({ activated: ["f1"] }).map((d) => d.name).sort(), ["d1", "f1", "m1"]);
      // hidden tools stay callable by the embedding program
      assert.equal(outcomeOf(await host.call("h1", {})), "ok");
    });
  });

  it("tool_search is declared only while deferred tools wait, and finds them by keywords with control.add_tools", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:plain", code: exposed("plain", "direct") });
      assert.ok(!host.declarations().some((d) => d.name === "tool_search"));
      await host.load({ source: "agent:csv", code: exposed("csv_tool", "deferred", "Converts CSV text into JSON rows") });
      await host.load({ source: "agent:weather", code: exposed("forecast", "deferred", "Tells the weather forecast for a city") });
      assert.ok(host.declarations().some((d) => d.name === "tool_search"));
      const found = await host.call("tool_search", { query: "convert csv into json" });
      assert.ok(found.ok, JSON.stringify(found));
      assert.deepEqual(found.control?.add_tools, ["csv_tool"]);
      assert.match(found.output, /csv_tool: Converts CSV text into JSON rows/);
      const none = await host.call("tool_search", { query: "zebra" });
      assert.ok(none.ok);
      assert.equal(none.control, undefined);
      assert.match(none.output, /No tool matches/);
      assert.equal(outcomeOf(await host.call("tool_search", { query: "" })), "invalid_input");
      assert.ok(!host.declarations({ activated: ["csv_tool", "forecast"] }).some((d) => d.name === "tool_search"));
    });
  });

  it("a quarantined source's tools are not declared", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:bad", code: exposed("bad_one", "direct") });
      await host.load({ source: "agent:good", code: exposed("good_one", "direct") });
      await host.quarantine("agent:bad", { reason: "testing" });
      assert.deepEqual(host.declarations().map((d) => d.name).sort(), ["good_one"]);
      await host.release("agent:bad");
      assert.deepEqual(host.declarations().map((d) => d.name).sort(), ["bad_one", "good_one"]);
    });
  });
});
