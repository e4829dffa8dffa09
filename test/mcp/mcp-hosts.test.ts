/**
 * Which Host and Origin headers corral's MCP server over HTTP answers, on
 * real servers bound to a loopback address, to this machine's LAN address
 * and to every address (0.0.0.0): the address a client connected to (the
 * SDK's own Client over the LAN address included), `localhost` only on a
 * loopback connection, names the operator allowed (on any port, or on one),
 * and nothing else (DNS rebinding protection).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpServer, type CorralMcpServer } from "../../src/adapters/mcp/index.js";
import { CorralError, createHost, type Host } from "../../src/index.js";
import { toolSource } from "../helpers/host.js";

const TOKEN = "hosts-token-0123456789abcdef";
const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

/** This machine's first non-loopback IPv4 address: the server is bound to it as to a LAN address. */
const LAN = Object.values(networkInterfaces()).flat().find((each) => each !== undefined && each.family === "IPv4" && !each.internal)?.address;
const NO_LAN = LAN === undefined ? "this machine has no non-loopback IPv4 address to bind" : false;

/** An initialize POST to `connectTo:port` carrying exactly these Host (and Origin) headers; answers the status. */
function post(connectTo: string, port: number, host: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: host, "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${TOKEN}` };
    if (origin !== undefined) headers.Origin = origin;
    const req = httpRequest({ host: connectTo, port, path: "/mcp", method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(initialize);
  });
}

describe("corral mcp over HTTP: the Host and Origin a request may carry", { timeout: 120_000 }, () => {
  let host: Host;
  let mcp: CorralMcpServer;

  before(async () => {
    host = createHost({ workers: 1, ledger: { store: false } });
    assert.ok((await host.load({ source: "agent:hosts", code: toolSource({ name: "hello", run: 'return "hi";' }) })).ok);
    mcp = createMcpServer(host);
  });
  after(async () => {
    await mcp.close();
    await host.close();
  });

  const listen = async (bind: string, allowedHosts?: string[]) => {
    const http = await mcp.listen({ host: bind, token: TOKEN, ...(allowedHosts === undefined ? {} : { allowedHosts }) });
    return { http, port: Number(new URL(http.url).port) };
  };

  it("bound to loopback: answers loopback names and addresses on its port, and nothing else", async () => {
    const { http, port } = await listen("127.0.0.1");
    try {
      assert.equal(await post("127.0.0.1", port, `127.0.0.1:${port}`), 200);
      assert.equal(await post("127.0.0.1", port, `localhost:${port}`), 200);
      assert.equal(await post("127.0.0.1", port, `LOCALHOST:${port}`, `http://localhost:${port}`), 200);
      assert.equal(await post("127.0.0.1", port, `[::1]:${port}`), 200);
      assert.equal(await post("127.0.0.1", port, `localhost:${port + 1}`), 403, "another port is another server");
      assert.equal(await post("127.0.0.1", port, "localhost"), 403, "no port: port 80");
      assert.equal(await post("127.0.0.1", port, `evil.example:${port}`), 403);
      assert.equal(await post("127.0.0.1", port, `localhost.evil.example:${port}`), 403);
      assert.equal(await post("127.0.0.1", port, `127.0.0.1:${port}`, "https://evil.example"), 403);
      assert.equal(await post("127.0.0.1", port, `127.0.0.1:${port}`, `http://localhost:${port + 1}`), 403);
    } finally {
      await http.close();
    }
  });

  it("bound to a LAN address: answers that address, never a loopback name; the SDK's Client lists tools through it", { skip: NO_LAN }, async () => {
    const lan = LAN as string;
    const { http, port } = await listen(lan);
    const client = new Client({ name: "lan-client", version: "1.0.0" });
    try {
      assert.equal(http.url, `http://${lan}:${port}/mcp`);
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["hello"]);
      assert.equal(await post(lan, port, `${lan}:${port}`), 200);
      assert.equal(await post(lan, port, `${lan}:${port}`, `http://${lan}:${port}`), 200, "a page of this server's own origin");
      assert.equal(await post(lan, port, `localhost:${port}`), 403, "loopback names only on a loopback connection");
      assert.equal(await post(lan, port, `127.0.0.1:${port}`), 403);
      assert.equal(await post(lan, port, `${lan}:${port}`, `http://localhost:${port}`), 403);
      assert.equal(await post(lan, port, `evil.example:${port}`), 403);
    } finally {
      await client.close();
      await http.close();
    }
  });

  it("answers the names the operator allowed, on any port or on the one given", { skip: NO_LAN }, async () => {
    const lan = LAN as string;
    const { http, port } = await listen(lan, ["mcp.internal", "Proxy.Example:8443"]);
    try {
      assert.equal(await post(lan, port, "mcp.internal"), 200, "behind a proxy on port 80");
      assert.equal(await post(lan, port, "MCP.internal.:9999"), 200, "any port, any case, a trailing dot");
      assert.equal(await post(lan, port, "proxy.example:8443"), 200);
      assert.equal(await post(lan, port, "proxy.example:8444"), 403);
      assert.equal(await post(lan, port, "proxy.example"), 403);
      assert.equal(await post(lan, port, "evil.mcp.internal"), 403);
      assert.equal(await post(lan, port, `${lan}:${port}`), 200, "its own address still");
      assert.equal(await post(lan, port, "mcp.internal", "https://mcp.internal"), 200, "a page of an allowed name");
      assert.equal(await post(lan, port, "mcp.internal", "https://evil.example"), 403);
    } finally {
      await http.close();
    }
    await assert.rejects(mcp.listen({ token: TOKEN, allowedHosts: ["a host/with a path"] }), (error: unknown) => error instanceof CorralError && error.code === "invalid_options");
  });

  it("bound to every address: localhost from this machine, the LAN address from the LAN, not the other way round", { skip: NO_LAN }, async () => {
    const lan = LAN as string;
    const { http, port } = await listen("0.0.0.0");
    try {
      assert.equal(await post("127.0.0.1", port, `localhost:${port}`), 200);
      assert.equal(await post(lan, port, `${lan}:${port}`), 200);
      assert.equal(await post(lan, port, `localhost:${port}`), 403);
      assert.equal(await post(lan, port, `127.0.0.1:${port}`), 403);
      assert.equal(await post("127.0.0.1", port, `${lan}:${port}`), 403, "the client connected to another address than its Host names");
    } finally {
      await http.close();
    }
  });
});
