/**
 * Streamable HTTP sessions that end: an idle one expires, at the cap the one
 * idle longest makes room (a new client is refused only when every session
 * is busy), a session ended under a running call has the call cancelled and
 * recorded, 1,000 clients that never send DELETE leave the server serving
 * within its bound, and a stateless server answers each POST alone while
 * keeping deferred tools per named caller.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createMcpServer, type CorralMcpServer } from "../../src/adapters/mcp/index.js";
import { createHost, type Host } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";
import { writeTools } from "./fixture.js";
import { rawClient } from "./raw-client.js";

const TOKEN = "test-token-0123456789abcdef";

describe("MCP sessions over Streamable HTTP", { timeout: 300_000 }, () => {
  let dir: ReturnType<typeof tempDir>;
  let host: Host;
  let mcp: CorralMcpServer;
  let pidsBefore: number[];

  function waitFor(what: string, test: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const tick = () => (test() ? resolve() : Date.now() > deadline ? reject(new Error(`timed out waiting for ${what}`)) : setTimeout(tick, 20));
      tick();
    });
  }

  function started(tool: string, times = 1): Promise<void> {
    let seen = 0;
    return new Promise((resolve) => {
      const off = host.on((event) => {
        if (event.type === "tool_running" && event.tool === tool && ++seen === times) {
          off();
          resolve();
        }
      });
    });
  }

  async function cancelledCount(tool: string): Promise<number> {
    const source = host.tools().find((each) => each.name === tool)?.source;
    const row = (await host.audit()).find((each) => each.source === source);
    return row?.totals.outcomes.cancelled ?? 0;
  }

  before(async () => {
    pidsBefore = childPids();
    dir = tempDir();
    host = createHost({ workers: 2, cacheDir: join(dir.path, "cache"), ledger: { store: join(dir.path, "ledger.db") } });
    const loaded = await host.loadDirectory(writeTools(join(dir.path, "tools")));
    assert.ok(loaded.every((result) => result.ok), JSON.stringify(loaded));
    mcp = createMcpServer(host);
  });

  after(async () => {
    await mcp.close();
    await host.close();
    dir.remove();
    await assertNoWorkersLeft(pidsBefore);
  });

  it("expires a session idle for idleTimeoutMs: its id then answers 404", async () => {
    const http = await mcp.listen({ token: TOKEN, idleTimeoutMs: 300 });
    const raw = rawClient(http.url, TOKEN);
    const id = await raw.initialize();
    assert.equal((await raw.call(1, "echo", { text: "a" }, { "mcp-session-id": id })).status, 200);
    assert.equal(http.sessions, 1);
    await waitFor("the session to expire", () => http.sessions === 0, 5_000);
    assert.equal((await raw.call(2, "echo", { text: "b" }, { "mcp-session-id": id })).status, 404);
    await http.close();
  });

  it("at the cap closes the session idle longest; refuses a new client only while every session is busy", async () => {
    const http = await mcp.listen({ token: TOKEN, maxSessions: 2 });
    const raw = rawClient(http.url, TOKEN);
    const first = await raw.initialize();
    const second = await raw.initialize();
    await raw.call(1, "echo", { text: "second is the fresher one" }, { "mcp-session-id": second });
    const third = await raw.initialize();
    assert.equal(http.sessions, 2);
    assert.equal((await raw.call(2, "echo", { text: "x" }, { "mcp-session-id": first })).status, 404, "the first, idle longest, was closed");
    assert.equal((await raw.call(3, "echo", { text: "x" }, { "mcp-session-id": second })).status, 200);

    // Both sessions busy with a running call: nobody can be closed to make room.
    const running = started("slow", 2);
    const calls = [second, third].map((id, index) => raw.call(10 + index, "slow", { ms: 3_000 }, { "mcp-session-id": id }));
    await running;
    const refused = await raw.post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    assert.equal(refused.status, 503);
    assert.match(refused.text, /all of them busy/);
    for (const answer of await Promise.all(calls)) assert.equal(answer.status, 200);
    await http.close();
  });

  it("cancels a running call when its session is ended, and records it as cancelled", async () => {
    const http = await mcp.listen({ token: TOKEN });
    const raw = rawClient(http.url, TOKEN);
    const before = await cancelledCount("slow");
    const id = await raw.initialize();
    const running = started("slow");
    const call = raw.call(1, "slow", { ms: 60_000 }, { "mcp-session-id": id }).catch((error: Error) => error);
    await running;
    const deleted = await fetch(http.url, { method: "DELETE", headers: { Authorization: `Bearer ${TOKEN}`, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" } });
    assert.equal(deleted.status, 200);
    await call;
    assert.equal(await cancelledCount("slow"), before + 1, "the ledger has the cancelled call once the session is gone");
    assert.equal(http.sessions, 0);
    await http.close();
  });

  it("serves on after 1,000 clients that never send DELETE, within maxSessions and a bounded heap", async () => {
    const http = await mcp.listen({ token: TOKEN });
    const raw = rawClient(http.url, TOKEN);
    // Warm up first, so the heap is measured past the first isolates and caches.
    for (let i = 0; i < 50; i++) await raw.call(1, "echo", { text: "warm" }, { "mcp-session-id": await raw.initialize() });
    const heapBefore = process.memoryUsage().heapUsed;
    for (let run = 0; run < 1_000; run++) {
      const id = await raw.initialize();
      const answer = await raw.call(1, "echo", { text: `run ${run}` }, { "mcp-session-id": id });
      assert.equal(answer.status, 200, `run ${run}: ${answer.text}`);
      assert.ok(http.sessions <= 64, `run ${run}: ${http.sessions} sessions open, over maxSessions`);
    }
    const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    // 64 sessions of a few hundred KB at most each, plus garbage not yet collected: well under 100 MB. Unbounded, 1,000 would be several times that.
    assert.ok(grownMb < 100, `the host's heap grew ${grownMb.toFixed(1)} MB over 1,000 runs`);
    const id = await raw.initialize();
    assert.match((await raw.call(2, "echo", { text: "still serving" }, { "mcp-session-id": id })).text, /still serving/);
    await http.close();
  });

  it("stateless: answers each POST alone (no session id, GET refused) and keeps deferred tools per Corral-Caller", async () => {
    const http = await mcp.listen({ token: TOKEN, stateless: true });
    const raw = rawClient(http.url, TOKEN);
    const plain = await raw.call(1, "echo", { text: "no initialize" });
    assert.equal(plain.status, 200);
    assert.equal(plain.sessionId, null);
    assert.deepEqual((plain.messages[0]?.result as { structuredContent?: unknown }).structuredContent, { said: "no initialize" });
    assert.equal((await fetch(http.url, { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 405);

    const alice = { "corral-caller": "alice" };
    const bob = { "corral-caller": "bob" };
    const search = await raw.call(2, "tool_search", { query: "weather forecast" }, alice);
    assert.match(search.text, /forecast/);
    const mine = await raw.call(3, "forecast", {}, alice);
    assert.match(mine.text, /sunny/, "alice found it, in an earlier request");
    const theirs = await raw.call(4, "forecast", {}, bob);
    assert.equal((theirs.messages[0]?.error as { code?: number }).code, -32602, "bob never searched");
    assert.equal((await raw.call(5, "forecast", {}, { "corral-caller": "no spaces allowed" })).status, 400);
    assert.equal(http.sessions, 0, "nothing stays open after its request");
    await http.close();
  });
});
