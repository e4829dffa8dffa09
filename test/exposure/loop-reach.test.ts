/**
 * A model in the Anthropic loop (the real SDK against a scripted Messages
 * API) cannot call a tool it was not shown: it names the hidden create_tool,
 * a hidden tool and a deferred one nobody found, and each answers as an
 * unknown name while nothing runs or registers.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runConversation } from "../../src/loop/index.js";
import { baseRequest, text, toolUse, withConversation } from "../loop/fixture.js";

describe("the Anthropic loop and exposure", { timeout: 120_000 }, () => {
  it("answers hidden, unexposed create_tool and unfound deferred tools as unknown names", async () => {
    const secret = { name: "secret", extra: 'exposure: "hidden",', run: 'return "the secret ran";' };
    const later = { name: "later", extra: 'exposure: "deferred",', run: 'return "later ran";' };
    const code = 'import { defineTool } from "corral"; import { z } from "zod"; export default defineTool({ name: "planted", description: "x", input: z.object({}), effects: [], async run() { return "planted"; } });';
    const script = [
      { content: [toolUse("t1", "create_tool", { code }), toolUse("t2", "secret"), toolUse("t3", "later"), toolUse("t4", "nothing_here")], stop_reason: "tool_use" },
      { content: [text("Nothing worked.")], stop_reason: "end_turn" },
    ];
    await withConversation(
      script,
      [secret, later],
      async ({ server, host, loopHost, model }) => {
        const result = await runConversation(model, baseRequest(), { host: loopHost });
        const declared = (server.requests[0]?.body.tools as Array<{ name: string }>).map((t) => t.name);
        assert.deepEqual(declared, ["tool_search"], "only tool_search is shown");
        const errors = result.toolCalls.map((call) => (call.result.ok ? "ok" : `${call.result.error.kind}: ${call.result.error.message.replaceAll(call.name, "<name>")}`));
        assert.equal(new Set(errors).size, 1, `every refusal reads alike: ${JSON.stringify(errors)}`);
        assert.match(errors[0] as string, /^unknown_tool: /);
        assert.ok(!host.tools().some((tool) => tool.name === "planted"), "create_tool registered nothing");
        // A load makes its source known to the ledger (recordLoad); a call would add to its totals.
        assert.deepEqual((await host.audit()).filter((row) => row.totals.calls > 0).map((row) => row.source), [], "nothing ran");
      },
      { createTool: { agent: "assistant" } },
    );
  });
});
