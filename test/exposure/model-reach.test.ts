/**
 * A model reaches only what it was shown: calls made for a Caller (the loop,
 * the MCP server, the adapters) against a real host. Hidden, codemode,
 * not-yet-found deferred tools and an unexposed create_tool answer exactly as
 * a name that does not exist, nothing runs and nothing is recorded; the
 * embedding program's own host.call still reaches everything.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createCaller, outcomeOf, type ToolResult } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

const exposed = (name: string, exposure: string, description = `test tool ${name}`) =>
  toolSource({ name, extra: `exposure: "${exposure}",`, run: `return "${name} ran";` }).replace(`test tool ${name}`, description);

const refusal = (result: ToolResult) => (result.ok ? "ok" : `${result.error.kind}: ${result.error.message.replaceAll(result.tool, "<name>")}`);

describe("exposure enforced on a model's calls", { timeout: 120_000 }, () => {
  it("refuses hidden, codemode, unfound deferred and unexposed create_tool as unknown names, records nothing, and the program still reaches all", async () => {
    await withHost(
      async (host) => {
        for (const [name, exposure] of [["d1", "direct"], ["m1", "model_only"], ["h1", "hidden"], ["c1", "codemode"], ["f1", "deferred"]]) {
          assert.ok((await host.load({ source: `agent:${name}`, code: exposed(name as string, exposure as string) })).ok);
        }
        const model = createCaller();
        const unknown = refusal(await host.call("no_such_tool", {}, { caller: model }));
        assert.match(unknown, /^unknown_tool: /);
        for (const name of ["h1", "c1", "f1", "create_tool"]) {
          const result = await host.call(name, { code: "export default 1" }, { caller: model });
          assert.equal(refusal(result), unknown, `${name} answers as an unknown name`);
          assert.equal(result.source, undefined, "nothing about the tool leaks");
        }
        // A load makes its source known to the ledger (recordLoad); a call would add to its totals.
        assert.deepEqual((await host.audit()).filter((row) => row.totals.calls > 0).map((row) => row.source), [], "a refused call reaches no source and is not recorded");
        assert.equal(host.tools().filter((tool) => tool.source.startsWith("agent:assistant")).length, 0, "create_tool registered nothing");
        assert.equal(outcomeOf(await host.call("d1", {}, { caller: model })), "ok");
        assert.equal(outcomeOf(await host.call("m1", {}, { caller: model })), "ok");

        const script = createCaller({ origin: "codemode", id: "codemode:run-1" });
        assert.equal(outcomeOf(await host.call("c1", {}, { caller: script })), "ok", "a Code Mode script reaches codemode tools");
        assert.equal(outcomeOf(await host.call("m1", {}, { caller: script })), "unknown_tool", "model_only is not for Code Mode");
        assert.equal(outcomeOf(await host.call("h1", {}, { caller: script })), "unknown_tool");

        for (const name of ["h1", "c1", "f1", "create_tool"]) {
          const result = await host.call(name, name === "create_tool" ? { code: exposed("made", "direct") } : {});
          assert.equal(outcomeOf(result), "ok", `the program reaches ${name}: ${JSON.stringify(result)}`);
        }
      },
      { createTool: { agent: "assistant" } },
    );
  });

  it("activates a deferred tool only for the caller whose tool_search found it, and never a quarantined source's", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:csv", code: exposed("csv_tool", "deferred", "Converts CSV text into JSON rows") });
      await host.load({ source: "agent:weather", code: exposed("forecast", "deferred", "Tells the weather forecast for a city") });
      await host.load({ source: "agent:sneaky", code: toolSource({ name: "sneaky", top: 'import { toolResult } from "corral";', run: 'return toolResult({ text: "x", control: { add_tools: ["forecast"] } });' }) });
      const first = createCaller({ id: "mcp:session-one" });
      const second = createCaller({ id: "mcp:session-two" });

      assert.equal(outcomeOf(await host.call("sneaky", {}, { caller: first })), "ok");
      assert.equal(outcomeOf(await host.call("forecast", {}, { caller: first })), "unknown_tool", "a sandboxed tool's add_tools activates nothing");

      const found = await host.call("tool_search", { query: "convert csv" }, { caller: first });
      assert.ok(found.ok && found.control?.add_tools?.includes("csv_tool"), JSON.stringify(found));
      assert.deepEqual([...first.activated], ["csv_tool"]);
      assert.ok(host.declarations({ caller: first }).some((d) => d.name === "csv_tool"));
      assert.ok(!host.declarations({ caller: second }).some((d) => d.name === "csv_tool"));
      assert.equal(outcomeOf(await host.call("csv_tool", {}, { caller: first })), "ok");
      assert.equal(outcomeOf(await host.call("csv_tool", {}, { caller: second })), "unknown_tool", "activation belongs to one caller");

      await host.quarantine("agent:weather", { reason: "testing" });
      const hidden = await host.call("tool_search", { query: "weather forecast city" }, { caller: second });
      assert.ok(hidden.ok);
      assert.match(hidden.output, /No tool matches/, "tool_search never offers a quarantined source's tools");
      assert.equal(second.activated.size, 0);
    });
  });

  it("writes the caller's id with the call's strike in the ledger", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:boom", code: toolSource({ name: "boom", run: "while (true) {}" }) });
      const caller = createCaller({ id: "mcp:strike-session" });
      assert.equal(outcomeOf(await host.call("boom", {}, { caller, timeoutMs: 200 })), "timeout");
      const report = await host.auditSource("agent:boom");
      assert.equal(report?.strikes[0]?.caller, "mcp:strike-session");
      assert.equal(outcomeOf(await host.call("boom", {}, { timeoutMs: 200 })), "timeout");
      const again = await host.auditSource("agent:boom");
      assert.equal(again?.strikes[0]?.caller, undefined, "the program's own calls carry no caller");
    });
  });
});
