/**
 * corral's MCP server answers as the specification says (2025-06-18 and
 * 2025-11-25, JSON-RPC 2.0): malformed tools/call params -32602 in a short
 * sentence, JSON that is not JSON-RPC -32600, a body that is not JSON
 * -32700, a tool's own failure an isError result; a cancelled call's
 * response stream ends once the ledger has it; a 413 reaches a client still
 * sending its upload (Node's fetch sees the status, not ECONNRESET).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createMcpServer, type CorralMcpServer, type McpHttpServer } from "../../src/adapters/mcp/index.js";
import { createHost, type Host } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";
import { writeTools } from "./fixture.js";
import { rawClient } from "./raw-client.js";

const TOKEN = "test-token-0123456789abcdef";

describe("MCP protocol errors and streams", { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof tempDir>;
  let host: Host;
  let mcp: CorralMcpServer;
  let http: McpHttpServer;
  let raw: ReturnType<typeof rawClient>;
  let session: Record<string, string>;
  let pidsBefore: number[];

  before(async () => {
    pidsBefore = childPids();
    dir = tempDir();
    host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: join(dir.path, "ledger.db") } });
    const loaded = await host.loadDirectory(writeTools(join(dir.path, "tools")));
    assert.ok(loaded.every((result) => result.ok), JSON.stringify(loaded));
    mcp = createMcpServer(host);
    http = await mcp.listen({ token: TOKEN });
    raw = rawClient(http.url, TOKEN);
    session = { "mcp-session-id": await raw.initialize() };
  });

  after(async () => {
    await mcp.close();
    await host.close();
    dir.remove();
    await assertNoWorkersLeft(pidsBefore);
  });

  function errorOf(answer: { messages: Array<Record<string, unknown>> }): { code: number; message: string } {
    const error = answer.messages[0]?.error as { code: number; message: string } | undefined;
    assert.ok(error, "a JSON-RPC error");
    return error;
  }

  it("answers malformed tools/call params with -32602 and one short sentence, not a validator's dump", async () => {
    for (const [params, field] of [
      [{ name: 5 }, "params.name"],
      [{ arguments: {} }, "params.name"],
      [{ name: "echo", arguments: "text" }, "params.arguments"],
      [{ name: "" }, "params.name"],
    ] as const) {
      const error = errorOf(await raw.post({ jsonrpc: "2.0", id: 1, method: "tools/call", params }, session));
      assert.equal(error.code, -32602, JSON.stringify(params));
      assert.ok(error.message.startsWith(`invalid tools/call params: ${field} `), error.message);
      assert.ok(error.message.length < 120 && !/[[{]/.test(error.message), `short and plain: ${error.message}`);
    }
    const list = errorOf(await raw.post({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { cursor: 5 } }, session));
    assert.deepEqual(list, { code: -32602, message: "invalid tools/list params: params.cursor must be a string" });
    const bad = await raw.call(2, "echo", { text: 5 }, session);
    assert.equal((bad.messages[0]?.result as { isError?: boolean }).isError, true, "a tool's own invalid input stays an isError result");
  });

  it("answers JSON that is not JSON-RPC with -32600 and a body that is not JSON with -32700", async () => {
    // params that are not structured (an object) make the request itself invalid (JSON-RPC 2.0, 4.2).
    for (const body of [{ hello: "world" }, [], { jsonrpc: "2.0", id: 1, method: "tools/call", params: "echo" }, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }, 42], { jsonrpc: "1.0", id: 1, method: "tools/list" }]) {
      const answer = await raw.post(body, session);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(errorOf(answer).code, -32600, JSON.stringify(body));
    }
    const fresh = await raw.post({ hello: "no session either" });
    assert.equal(errorOf(fresh).code, -32600);
    const broken = await raw.post("{ not json", session);
    assert.equal(broken.status, 400);
    assert.equal(errorOf(broken).code, -32700);
  });

  it("ends a cancelled call's response stream once the ledger recorded the cancellation", async () => {
    const source = host.tools().find((each) => each.name === "slow")?.source;
    const cancelledNow = async () => (await host.audit()).find((row) => row.source === source)?.totals.outcomes.cancelled ?? 0;
    const before = await cancelledNow();
    const running = new Promise<void>((resolve) => {
      const off = host.on((event) => {
        if (event.type === "tool_running" && event.tool === "slow") {
          off();
          resolve();
        }
      });
    });
    const started = Date.now();
    const call = raw.call(7, "slow", { ms: 60_000 }, session);
    await running;
    const notified = await raw.post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "the user pressed stop" } }, session);
    assert.equal(notified.status, 202);
    const answer = await call;
    assert.ok(Date.now() - started < 30_000, "the stream ended long before the call would have");
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.messages.filter((message) => message.id === 7), [], "no response for a cancelled request, as the specification says");
    assert.equal(await cancelledNow(), before + 1, "recorded before the stream ended");
  });

  it("lets Node's fetch read a 413 for a 10 MB upload it is still sending, with a length or streamed", async () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${TOKEN}`, ...session };
    const sized = await fetch(http.url, { method: "POST", headers, body: Buffer.alloc(10 * 1024 * 1024, 0x20) });
    assert.equal(sized.status, 413);
    assert.match(await sized.text(), /larger than 4194304 bytes/);

    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 10 * 1024 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await fetch(http.url, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.equal(JSON.parse(await streamed.text()).error.code, -32600);
    assert.match((await raw.call(9, "echo", { text: "still here" }, session)).text, /still here/);
  });
});
