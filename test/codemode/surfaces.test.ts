/**
 * Code Mode through the surfaces a model uses: the Anthropic conversation
 * loop (the real SDK against a scripted Messages API server) and the MCP
 * server (the MCP SDK's real client). run_code is offered when Code Mode is
 * on; one script calls three tools, one of them codemode-only.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { runConversation } from "../../src/loop/index.js";
import { createMcpServer } from "../../src/adapters/mcp/index.js";
import { baseRequest, text, toolUse, withConversation } from "../loop/fixture.js";
import { withHost } from "../helpers/host.js";
import { loadTrio } from "./fixture.js";

const SCRIPT = `
const { sum } = await tools.add({ a: 2, b: 3 });
const loud = await tools.shout({ text: "done" });
const { value } = await tools.vault({ key: "pin" });
return \`sum \${sum}, \${loud}, pin \${value}\`;`;

describe("Code Mode in the loop and over MCP", { timeout: 120_000 }, () => {
  it("the Anthropic loop declares run_code; a model's script calls three tools and gets one tool_result with the combined answer", async () => {
    const script = [
      { content: [text("One script."), toolUse("toolu_1", "run_code", { code: SCRIPT })], stop_reason: "tool_use" },
      { content: [text("sum 5, DONE, pin 1234.")], stop_reason: "end_turn" },
    ];
    await withConversation(
      script,
      [],
      async ({ server, host, loopHost, model }) => {
        await loadTrio(host);
        const result = await runConversation(model, baseRequest(), { host: loopHost });
        const declared = server.requests[0]?.body.tools as Array<{ name: string; description: string }>;
        assert.deepEqual(declared.map((tool) => tool.name).sort(), ["add", "run_code", "shout"], "vault is codemode-only: not declared to the model");
        const runCode = declared.find((tool) => tool.name === "run_code");
        assert.match(runCode?.description ?? "", /vault\(input: \{/, "run_code's description declares the codemode-only tool");
        const sent = server.sentMessages()[1] as Array<{ role: string; content: Array<{ type: string; tool_use_id: string; is_error: boolean; content: string }> }>;
        const answers = sent[2]?.content ?? [];
        assert.deepEqual(answers, [{ type: "tool_result", tool_use_id: "toolu_1", is_error: false, content: "sum 5, DONE, pin 1234" }]);
        assert.equal(result.toolCalls.length, 1);
        const details = result.toolCalls[0]?.result.details as { calls: { tool: string; kind: string }[] };
        assert.deepEqual(details.calls.map((call) => call.tool), ["add", "shout", "vault"]);
      },
      { codeMode: {} },
    );
  });

  it("MCP tools/list shows run_code, and the SDK's client calls it", () =>
    withHost(
      async (host) => {
        await loadTrio(host);
        const server = createMcpServer(host);
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        const client = new Client({ name: "codemode-test", version: "1.0.0" });
        await client.connect(clientSide);
        try {
          const listed = (await client.listTools()).tools;
          assert.deepEqual(listed.map((tool) => tool.name).sort(), ["add", "run_code", "shout"]);
          assert.match(listed.find((tool) => tool.name === "run_code")?.description ?? "", /declare const tools/);
          const called = await client.callTool({ name: "run_code", arguments: { code: SCRIPT } });
          assert.notEqual(called.isError, true, JSON.stringify(called));
          assert.deepEqual(called.content, [{ type: "text", text: "sum 5, DONE, pin 1234" }]);
          // Not the MCP client's to call: answered as an unknown tool, a JSON-RPC error (docs/mcp.md).
          await assert.rejects(client.callTool({ name: "vault", arguments: { key: "pin" } }), (error: { code?: number }) => error.code === -32602);
        } finally {
          await client.close();
          await server.close();
        }
      },
      { codeMode: {} },
    ));
});
