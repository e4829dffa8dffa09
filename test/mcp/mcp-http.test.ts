/**
 * corral's MCP server over Streamable HTTP on 127.0.0.1, driven by the MCP
 * SDK's own Client and by raw HTTP for what a client library would never
 * send: list, call, a hostile tool, a hidden one, quarantine and
 * list_changed, deferred tools and isolation scopes per session, progress, cancellation, a client
 * that hangs up, and the guards (token, Host, Origin, body size, bad JSON).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { createMcpServer, type CorralMcpServer, type McpHttpServer } from "../../src/adapters/mcp/index.js";
import { createHost, type Host, type HostEvent } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";
import { closeMcpTest, rpcError, textOf, watchListChanged, writeTools } from "./fixture.js";

const TOKEN = "test-token-0123456789abcdef";

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One HTTP request with exactly the headers given (fetch would not let a test set Host). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "POST", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

describe("corral mcp over Streamable HTTP", { timeout: 240_000 }, () => {
  let dir: ReturnType<typeof tempDir>;
  let host: Host;
  let mcp: CorralMcpServer;
  let http: McpHttpServer;
  let pidsBefore: number[];
  const events: HostEvent[] = [];
  const clients: Client[] = [];

  async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: "corral-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  function sourceOf(tool: string): string {
    const info = host.tools().find((each) => each.name === tool);
    assert.ok(info, `${tool} is loaded`);
    return info.source;
  }

  function endOf(tool: string, outcome: string, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${outcome} end for ${tool}`)), timeoutMs);
      const off = host.on((event) => {
        if (event.type === "tool_execution_end" && event.tool === tool && (event.result.ok ? "ok" : event.result.error.kind) === outcome) {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    });
  }

  function started(tool: string): Promise<void> {
    return new Promise((resolve) => {
      const off = host.on((event) => {
        if (event.type === "tool_running" && event.tool === tool) {
          off();
          resolve();
        }
      });
    });
  }

  before(async () => {
    pidsBefore = childPids();
    dir = tempDir();
    host = createHost({ workers: 2, cacheDir: join(dir.path, "cache"), ledger: { store: join(dir.path, "ledger.db") } });
    host.on((event) => events.push(event));
    const loaded = await host.loadDirectory(writeTools(join(dir.path, "tools")));
    assert.ok(loaded.every((result) => result.ok), JSON.stringify(loaded));
    mcp = createMcpServer(host, { version: "9.9.9" });
    http = await mcp.listen({ token: TOKEN });
  });

  after(() => closeMcpTest({ clients, mcp, host, dir, pidsBefore }));

  it("binds 127.0.0.1 and lists what a model may see, with titles, schemas and hints from effects", async () => {
    assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client } = await connect();
    assert.equal(client.getServerVersion()?.name, "corral");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["echo", "slow", "spin", "tool_search", "writer"]);
    const echo = tools.find((tool) => tool.name === "echo");
    assert.equal(echo?.title, "Echo");
    assert.deepEqual(echo?.annotations, { title: "Echo", readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    // The dialect once, at the root (SEP-1613); the host's trim of what says nothing holds below it.
    assert.equal(echo?.inputSchema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(JSON.stringify(echo?.inputSchema).split("$schema").length, 2);
    assert.deepEqual(echo?.inputSchema.required, ["text"]);
    const writer = tools.find((tool) => tool.name === "writer");
    assert.deepEqual(writer?.annotations, { title: "Writer", readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  it("calls a tool, answers errors as isError results naming the kind, and never reaches a hidden tool", async () => {
    const { client } = await connect();
    const ok = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    assert.equal(ok.isError, undefined);
    assert.deepEqual(ok.structuredContent, { said: "hi" });
    assert.equal(textOf(ok), '{"said":"hi"}');

    const bad = await client.callTool({ name: "echo", arguments: { text: 5 } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /^invalid_input: /);

    // The specification: an unknown tool is a protocol error (its example: -32602), and a hidden one reads the same.
    const unknown = await rpcError(client.callTool({ name: "no_such_tool", arguments: {} }));
    const secret = await rpcError(client.callTool({ name: "secret", arguments: {} }));
    assert.equal(unknown.code, -32602);
    assert.equal(unknown.message, "Unknown tool: no_such_tool (tools/list names the tools this session may call)");
    assert.deepEqual({ ...secret, message: secret.message.replace("secret", "X") }, { ...unknown, message: unknown.message.replace("no_such_tool", "X") }, "a hidden tool reads as an unknown one");
    assert.ok(!events.some((event) => event.type === "tool_running" && event.tool === "secret"), "the hidden tool never ran");

    const hostile = await client.callTool({ name: "spin", arguments: {} });
    assert.equal(hostile.isError, true);
    assert.match(textOf(hostile), /^timeout: /);
    const again = await client.callTool({ name: "echo", arguments: { text: "still here" } });
    assert.deepEqual(again.structuredContent, { said: "still here" }, "the server serves on after a hostile tool");
  });

  it("activates a deferred tool for the session whose tool_search found it, tells it, and writes its session id in the ledger", async () => {
    const one = await connect();
    const two = await connect();
    const changed = watchListChanged(one.client);
    const search = await one.client.callTool({ name: "tool_search", arguments: { query: "weather forecast" } });
    assert.match(textOf(search), /forecast/);
    await changed.next();
    assert.ok((await one.client.listTools()).tools.some((tool) => tool.name === "forecast"));
    assert.ok(!(await two.client.listTools()).tools.some((tool) => tool.name === "forecast"), "another session did not find it");
    assert.equal((await rpcError(two.client.callTool({ name: "forecast", arguments: {} }))).code, -32602);
    assert.equal(textOf(await one.client.callTool({ name: "forecast", arguments: {} })), "sunny");

    await one.client.callTool({ name: "spin", arguments: {} });
    const report = await host.auditSource(sourceOf("spin"));
    assert.equal(report?.strikes[0]?.caller, `mcp:${one.transport.sessionId}`);
  });

  it("runs each session's calls in its own scope: what a tool left in one session's isolate never reaches another's", async () => {
    const code = toolSource({ name: "tally", run: "globalThis.tally = (globalThis.tally ?? 0) + 1; return { tally: globalThis.tally };" });
    assert.equal((await host.load({ source: "agent:tally", code })).ok, true);
    const one = await connect();
    const two = await connect();
    for (let i = 0; i < 3; i++) await one.client.callTool({ name: "tally", arguments: {} });
    assert.deepEqual((await two.client.callTool({ name: "tally", arguments: {} })).structuredContent, { tally: 1 }, "a new session starts from a clean isolate");
  });

  it("sends progress while a call runs past a second, and cancels a call the client cancels", async () => {
    const { client } = await connect();
    const progress: number[] = [];
    const done = await client.callTool({ name: "slow", arguments: { ms: 2_200 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 30_000 });
    assert.equal(textOf(done), "done");
    assert.ok(progress.length >= 1, "at least one progress notification");

    const abort = new AbortController();
    const cancelled = endOf("slow", "cancelled");
    const running = started("slow");
    const call = client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, { signal: abort.signal, timeout: 90_000 });
    await running;
    abort.abort();
    await assert.rejects(call);
    await cancelled;
  });

  it("cancels a call whose HTTP client hangs up, and serves on", async () => {
    const { client, transport } = await connect();
    const cancelled = endOf("slow", "cancelled");
    const running = started("slow");
    const req = httpRequest(http.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, Authorization: `Bearer ${TOKEN}`, "mcp-session-id": transport.sessionId as string, "mcp-protocol-version": "2025-06-18" },
    });
    req.on("error", () => {});
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: "slow", arguments: { ms: 60_000 } } }));
    await running;
    req.destroy();
    await cancelled;
    assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "next" } })), '{"said":"next"}');
    const row = (await host.audit()).find((each) => each.source === sourceOf("slow"));
    assert.ok((row?.totals.outcomes.cancelled ?? 0) >= 1, "the ledger recorded the cancelled call");
  });

  it("tells every session when a source is quarantined, shrinks the list, and refuses its calls", async () => {
    const { client } = await connect();
    const changed = watchListChanged(client);
    await client.listTools();
    const next = changed.next();
    await host.quarantine(sourceOf("writer"), { reason: "testing" });
    await next;
    assert.ok(!(await client.listTools()).tools.some((tool) => tool.name === "writer"));
    const refused = await client.callTool({ name: "writer", arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^quarantined: /);
    const released = changed.next();
    await host.release(sourceOf("writer"));
    await released;
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "writer"));
  });

  it("answers an unknown method with a JSON-RPC error", async () => {
    const { client } = await connect();
    await assert.rejects(client.request({ method: "corral/nothing", params: {} }, z.object({})), (error: { code?: number }) => error.code === -32601);
  });

  it("refuses a missing, wrong or misplaced token with 401, foreign Host and Origin with 403, a 10 MB body with 413, bad JSON with a parse error", async () => {
    const port = new URL(http.url).port;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const none = await raw(http.url, { headers: JSON_HEADERS, body: initialize });
    assert.equal(none.status, 401);
    assert.match(String(none.headers["www-authenticate"]), /^Bearer/);
    assert.equal((await raw(http.url, { headers: { ...JSON_HEADERS, Authorization: "Bearer wrong-token-0123456789abcdef" }, body: initialize })).status, 401);
    assert.equal((await raw(http.url, { headers: { ...JSON_HEADERS, "X-Api-Key": TOKEN }, body: initialize })).status, 401);
    assert.equal((await raw(`${http.url}?token=${TOKEN}`, { headers: JSON_HEADERS, body: initialize })).status, 401);
    assert.equal((await raw(http.url, { headers: { ...JSON_HEADERS, ...auth, Host: `evil.example:${port}` }, body: initialize })).status, 403);
    assert.equal((await raw(http.url, { headers: { ...JSON_HEADERS, ...auth, Origin: "https://evil.example" }, body: initialize })).status, 403);
    const local = await raw(http.url, { headers: { ...JSON_HEADERS, ...auth, Origin: `http://localhost:${port}` }, body: initialize });
    assert.equal(local.status, 200, "a loopback origin is let through");

    const big = await raw(http.url, { headers: { ...JSON_HEADERS, ...auth }, body: Buffer.alloc(10 * 1024 * 1024, 0x20) }).catch((error: Error) => ({ status: -1, body: error.message, headers: {} }));
    assert.equal(big.status, 413, big.body);
    const malformed = await raw(http.url, { headers: { ...JSON_HEADERS, ...auth }, body: "{ not json" });
    assert.equal(malformed.status, 400);
    assert.equal(JSON.parse(malformed.body).error.code, -32700);
    const stranger = await raw(http.url, { headers: { ...JSON_HEADERS, ...auth, "mcp-session-id": "no-such-session" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    assert.equal(stranger.status, 404);
    assert.equal((await raw(http.url.replace("/mcp", "/other"), { method: "GET", headers: auth })).status, 404);
    const { client } = await connect();
    assert.ok((await client.listTools()).tools.length > 0, "the server serves on");
  });
});
