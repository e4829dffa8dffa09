/**
 * @module test/mcp/mcp-talk-back.test
 * A tool's talk-back over MCP, with the SDK's real client over Streamable
 * HTTP, where the conformance suite does not look: the log level filters
 * what is sent and console lines follow once a client set one; progress
 * only ever increases (a heartbeat before the tool's first report); a
 * client without elicitation or sampling has the tool's request refused
 * naming why; the question names the tool and its source; the sampling
 * budget holds; a Code Mode script's tools talk back on the script's call.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { createMcpServer, type CorralMcpServer, type McpHttpServer } from "../../src/adapters/mcp/index.js";
import { createHost, type Host } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";
import { closeMcpTest, textOf } from "./fixture.js";

const TOKEN = "talk-back-token-0123456789";

const TOOLS = `import { defineTool } from "corral";
import { z } from "zod";
const none = z.object({});
export const chatty = defineTool({
  name: "chatty", description: "logs at every level and to the console", input: none, effects: [],
  async run(_input, ctx) {
    for (const level of ["debug", "info", "warning", "error"]) await ctx.log(level, { level });
    console.log("a console line");
    console.warn("a console warning");
    return "said it all";
  },
});
export const slowSteps = defineTool({
  name: "slow_steps", description: "waits, then reports fractions and a step back", input: none, effects: [], limits: { timeoutMs: 5000 },
  async run(_input, ctx) {
    await new Promise((resolve) => setTimeout(resolve, 350));
    for (const done of [0.25, 0.5, 0.4, 1]) await ctx.progress(done, 1);
    return "stepped";
  },
});
export const asker = defineTool({
  name: "asker", description: "asks the user", input: none, effects: ["ask_user"],
  async run(_input, ctx) {
    try { return JSON.stringify(await ctx.elicit("Your name?", z.object({ name: z.string() }))); }
    catch (error) { return "refused " + error.code + ": " + error.message; }
  },
});
export const sampler = defineTool({
  name: "sampler", description: "asks the model twice", input: z.object({ maxTokens: z.number() }), effects: ["sample_model"],
  async run({ maxTokens }, ctx) {
    const out = [];
    for (let i = 0; i < 2; i++) {
      try { const answer = await ctx.sample({ messages: "Say hi", maxTokens }); out.push(answer.model + ": " + answer.content.text); }
      catch (error) { out.push(error.code); }
    }
    return out.join(" | ");
  },
});
`;

describe("MCP: tools that talk back", { timeout: 180_000 }, () => {
  let dir: ReturnType<typeof tempDir>;
  let host: Host;
  let mcp: CorralMcpServer;
  let http: McpHttpServer;
  let pidsBefore: number[];
  const clients: Client[] = [];

  before(async () => {
    pidsBefore = childPids();
    dir = tempDir("corral-mcp-talk-");
    host = createHost({
      workers: 1,
      cacheDir: join(dir.path, "cache"),
      ledger: { store: join(dir.path, "ledger.db") },
      effects: { plugin: { sample_model: "allow" } },
      capabilities: { sampling: { maxTokensPerCall: 150 } },
      codeMode: {},
    });
    const loaded = await host.load({ source: "plugin:talkers", code: TOOLS });
    assert.ok(loaded.ok, JSON.stringify(loaded));
    mcp = createMcpServer(host, { progressIntervalMs: 100 });
    http = await mcp.listen({ token: TOKEN });
  });

  after(() => closeMcpTest({ clients, mcp, host, dir, pidsBefore }));

  async function connect(capabilities: Record<string, object> = {}): Promise<Client> {
    const client = new Client({ name: "talk-back-test", version: "1.0.0" }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    clients.push(client);
    return client;
  }

  function logsOf(client: Client): Array<{ level: string; logger?: string; data: unknown }> {
    const seen: Array<{ level: string; logger?: string; data: unknown }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      seen.push(notification.params as { level: string; logger?: string; data: unknown });
    });
    return seen;
  }

  it("declares logging; sends log messages at or above the client's level; console lines only once it set one", async () => {
    const client = await connect();
    assert.ok(client.getServerCapabilities()?.logging !== undefined);
    const seen = logsOf(client);
    await client.callTool({ name: "chatty", arguments: {} });
    // No level set: info and above, no console lines.
    assert.deepEqual(seen.map((m) => m.level), ["info", "warning", "error"]);
    seen.length = 0;
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "chatty", arguments: {} });
    assert.deepEqual(seen.map((m) => [m.level, m.logger ?? ""]), [["warning", ""], ["error", ""], ["warning", "console"]]);
    assert.deepEqual(seen[0]?.data, { level: "warning" });
    assert.equal(seen[2]?.data, "a console warning");
    await assert.rejects(client.request({ method: "logging/setLevel", params: { level: "loud" } }, CallToolResultSchema), (error: { code?: number }) => error.code === -32602);
  });

  it("progress only increases: heartbeats until the tool's first report, then its values, a step back dropped", async () => {
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool({ name: "slow_steps", arguments: {} }, CallToolResultSchema, { onprogress: (p) => progress.push(p) });
    assert.equal(textOf(result), "stepped");
    const values = progress.map((p) => p.progress);
    assert.ok(values.every((value, i) => i === 0 || value > (values[i - 1] as number)), JSON.stringify(values));
    // Heartbeats (1, 2, 3 …, "slow_steps running for …") came before the tool reported: its values not above them are dropped, as the specification has progress only increase.
    assert.ok(progress.some((p) => /slow_steps running for/.test(p.message ?? "")), JSON.stringify(progress));
  });

  it("a client without elicitation or sampling has the tool's request refused, naming why; one with them is asked, the question naming the tool", async () => {
    const plain = await connect();
    assert.match(textOf(await plain.callTool({ name: "asker", arguments: {} })), /^refused refused: nobody can be asked here/);
    assert.match(textOf(await plain.callTool({ name: "sampler", arguments: { maxTokens: 10 } })), /^refused \| refused$/);

    const able = await connect({ elicitation: {}, sampling: {} });
    const questions: string[] = [];
    able.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: "accept", content: { name: "Ada" } };
    });
    let samples = 0;
    able.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      samples++;
      assert.equal(request.params.maxTokens, 100);
      return { role: "assistant", content: { type: "text", text: "hi" }, model: "test-model" };
    });
    assert.equal(textOf(await able.callTool({ name: "asker", arguments: {} })), JSON.stringify({ action: "accept", content: { name: "Ada" } }));
    assert.deepEqual(questions, ['The tool "asker" (source plugin:talkers) asks: Your name?']);
    // 100 + 100 passes the call's 150: the second sample is refused and never reaches the client.
    assert.equal(textOf(await able.callTool({ name: "sampler", arguments: { maxTokens: 100 } })), "test-model: hi | too_large");
    assert.equal(samples, 1);
  });

  it("a Code Mode script's tools talk back on the script's own request", async () => {
    const client = await connect({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Grace" } }));
    const seen = logsOf(client);
    const result = await client.callTool({ name: "run_code", arguments: { code: "await tools.chatty({}); return await tools.asker({});" } });
    assert.match(textOf(result), /Grace/);
    assert.ok(seen.some((m) => m.level === "error"), JSON.stringify(seen));
  });
});
