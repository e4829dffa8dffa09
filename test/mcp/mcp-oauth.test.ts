/**
 * @module test/mcp/mcp-oauth.test
 * The MCP server as an OAuth 2.1 resource server, against an issuer made
 * here (keys from jose, its RFC 8414 metadata and JWKS on 127.0.0.1) and
 * the SDK's real client: a valid token lists and calls and names the
 * caller in the ledger; an expired one, a wrong audience, a wrong issuer,
 * an unknown key, an HMAC forged with the public key and `alg: none` are
 * 401 `invalid_token` naming the metadata; no token is 401 without an
 * error code; a missing scope is 403 `insufficient_scope` and the tool does
 * not run; another subject on a session is 403; the issuer down is 503 and
 * the server serves again once it is back.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { pino } from "pino";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { createMcpServer, type CorralMcpServer, type McpHttpServer } from "../../src/adapters/mcp/index.js";
import { createHost, CorralError, type Host } from "../../src/index.js";
import { childPids, tempDir, toolSource } from "../helpers/host.js";
import { closeMcpTest, freePort, textOf, untilServing } from "./fixture.js";
import { BIN } from "../cli/cli-process.js";

type Issuer = { url: string; up: boolean; jwksFetches: number; close(): Promise<void> };

/** `claimedIssuer`: what its metadata says it is (another issuer's name, for the mismatch test). */
async function startIssuer(publicKeys: object[], claimedIssuer?: string): Promise<Issuer> {
  const issuer: Issuer = { url: "", up: true, jwksFetches: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    if (!issuer.up) return void res.writeHead(503).end();
    if (req.url === "/.well-known/oauth-authorization-server") {
      return void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ issuer: claimedIssuer ?? issuer.url, jwks_uri: `${issuer.url}/jwks`, token_endpoint: `${issuer.url}/token` }));
    }
    if (req.url === "/jwks") {
      issuer.jwksFetches++;
      return void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys: publicKeys }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return issuer;
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

describe("MCP: an OAuth 2.1 resource server", { timeout: 180_000 }, () => {
  let dir: ReturnType<typeof tempDir>;
  let host: Host;
  let mcp: CorralMcpServer;
  let http: McpHttpServer;
  let issuer: Issuer;
  let pidsBefore: number[];
  let signing: CryptoKey;
  let rsa: CryptoKey;
  let stranger: CryptoKey;
  let publicJwk: Record<string, unknown>;
  const clients: Client[] = [];
  /** The host's log lines: each call's names its caller. */
  const callLines: Array<{ event?: string; caller?: string; tool?: string }> = [];
  const callersOf = (tool: string) => callLines.filter((line) => line.event === "call" && line.tool === tool).map((line) => line.caller);

  const token = async (claims: Record<string, unknown> = {}, options: { key?: CryptoKey; alg?: string; kid?: string; expiresIn?: string | number; audience?: string; issuer?: string } = {}) => {
    const jwt = new SignJWT({ scope: "mcp:tools", ...claims })
      .setProtectedHeader({ alg: options.alg ?? "ES256", kid: options.kid ?? "es" })
      .setIssuer(options.issuer ?? issuer.url)
      .setAudience(options.audience ?? http.url)
      .setSubject((claims.sub as string | undefined) ?? "ada")
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "5m");
    return jwt.sign(options.key ?? signing);
  };

  async function connect(bearer: string): Promise<Client> {
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
    clients.push(client);
    return client;
  }

  const post = (bearer: string | undefined, body: object, headers: Record<string, string> = {}) =>
    fetch(http.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(bearer !== undefined ? { Authorization: `Bearer ${bearer}` } : {}), ...headers },
      body: JSON.stringify(body),
    });
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

  before(async () => {
    pidsBefore = childPids();
    dir = tempDir("corral-oauth-");
    const es = await generateKeyPair("ES256");
    const rs = await generateKeyPair("RS256");
    signing = es.privateKey;
    rsa = rs.privateKey;
    stranger = (await generateKeyPair("ES256")).privateKey;
    publicJwk = { ...(await exportJWK(es.publicKey)), kid: "es", alg: "ES256", use: "sig" };
    issuer = await startIssuer([publicJwk, { ...(await exportJWK(rs.publicKey)), kid: "rs", alg: "RS256", use: "sig" }]);
    const logger = pino({ level: "info" }, { write: (line: string) => void callLines.push(JSON.parse(line) as { event?: string; caller?: string; tool?: string }) });
    host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: join(dir.path, "ledger.db") }, createTool: { agent: "oauth-agent", exposure: "direct" }, logger });
    assert.ok((await host.load({ source: "agent:echo", code: toolSource({ name: "echo", input: "z.object({ text: z.string() })", run: "return input.text;" }) })).ok);
    mcp = createMcpServer(host);
    http = await mcp.listen({ oauth: { issuer: issuer.url } });
  });

  after(async () => {
    await closeMcpTest({ clients, mcp, host, dir, pidsBefore });
    await issuer.close();
  });

  it("serves RFC 9728 metadata without a token, and answers no token with 401 naming it", async () => {
    const metadataUrl = `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`;
    for (const url of [metadataUrl, `${new URL(http.url).origin}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(url);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { resource: http.url, authorization_servers: [issuer.url], scopes_supported: ["mcp:tools", "mcp:create_tool", "mcp:run_code"], bearer_methods_supported: ["header"], resource_name: "corral" });
    }
    const none = await post(undefined, initialize);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get("www-authenticate"), `Bearer resource_metadata="${metadataUrl}"`);
    assert.equal(http.token, "");
  });

  it("a valid token (ES256 or RS256) lists and calls; the call's record names the subject's caller", async () => {
    const client = await connect(await token());
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "echo"));
    assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } })), "hi");
    const rsClient = await connect(await token({ sub: "grace" }, { key: rsa, alg: "RS256", kid: "rs" }));
    assert.equal(textOf(await rsClient.callTool({ name: "echo", arguments: { text: "rsa" } })), "rsa");
    // A subject that is not a caller id (an email) is named by its digest.
    const mailClient = await connect(await token({ sub: "ada@example.com" }));
    assert.equal(textOf(await mailClient.callTool({ name: "echo", arguments: { text: "mail" } })), "mail");
    const digest = createHash("sha256").update("ada@example.com").digest("hex").slice(0, 40);
    assert.deepEqual(callersOf("echo"), ["oauth:ada", "oauth:grace", `oauth:sha256-${digest}`]);
  });

  it("refuses expired, wrong-audience, wrong-issuer, unknown-key, HMAC-forged and unsigned tokens with 401 invalid_token", async () => {
    const publicKeyBytes = Buffer.from(JSON.stringify(publicJwk));
    const header = base64url(Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })));
    const claims = base64url(Buffer.from(JSON.stringify({ iss: issuer.url, aud: http.url, sub: "mallory", scope: "mcp:tools", exp: Math.floor(Date.now() / 1000) + 300 })));
    const { createHmac } = await import("node:crypto");
    const hsHeader = base64url(Buffer.from(JSON.stringify({ alg: "HS256", kid: "es" })));
    const forged = `${hsHeader}.${claims}.${base64url(createHmac("sha256", publicKeyBytes).update(`${hsHeader}.${claims}`).digest())}`;
    const cases: Array<[string, string, RegExp]> = [
      ["expired", await token({}, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), /expired/],
      ["wrong audience", await token({}, { audience: "https://elsewhere.example/mcp" }), /aud/],
      ["wrong issuer", await token({}, { issuer: "https://evil.example" }), /iss/],
      ["unknown key", await token({}, { key: stranger }), /not one this server accepts/],
      ["HMAC with the public key", forged, /not one this server accepts/],
      ["alg none", `${header}.${claims}.`, /not one this server accepts/],
    ];
    for (const [what, bearer, description] of cases) {
      const response = await post(bearer, initialize);
      assert.equal(response.status, 401, what);
      const challenge = response.headers.get("www-authenticate") ?? "";
      assert.match(challenge, /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/, what);
      assert.match(challenge, description, what);
    }
  });

  it("a token without a scope is refused: mcp:tools to use the server, mcp:create_tool for create_tool (which then does not run)", async () => {
    const noScope = await post(await token({ scope: "profile" }), initialize);
    assert.equal(noScope.status, 403);
    assert.match(noScope.headers.get("www-authenticate") ?? "", /error="insufficient_scope", scope="mcp:tools"/);
    const client = await connect(await token());
    const before = host.tools().length;
    await assert.rejects(
      client.callTool({ name: "create_tool", arguments: { code: toolSource({ name: "made", run: 'return "made";' }) } }),
      (error: Error) => /403/.test(error.message) || /insufficient_scope|mcp:create_tool/.test(error.message),
    );
    assert.equal(host.tools().length, before, "the tool was not created");
    const able = await connect(await token({ scope: "mcp:tools mcp:create_tool" }));
    const made = await able.callTool({ name: "create_tool", arguments: { code: toolSource({ name: "made", run: 'return "made";' }) } });
    assert.equal(made.isError, undefined, textOf(made));
    assert.ok(host.tools().some((tool) => tool.name === "made"));
  });

  it("a session is its subject's: another subject's token on it is 403", async () => {
    const opened = await post(await token({ sub: "ada" }), initialize);
    assert.equal(opened.status, 200);
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    await opened.text();
    const other = await post(await token({ sub: "eve" }), { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" });
    assert.equal(other.status, 403);
    assert.match(await other.text(), /another subject/);
  });

  it("the issuer's keys unreachable at first use: 503, then served once it is back", async () => {
    const fresh = await createMcpServer(host).listen({ oauth: { issuer: issuer.url } });
    try {
      const bearer = await new SignJWT({ scope: "mcp:tools" }).setProtectedHeader({ alg: "ES256", kid: "es" }).setIssuer(issuer.url).setAudience(fresh.url).setSubject("ada").setExpirationTime("5m").sign(signing);
      const ask = () => fetch(fresh.url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${bearer}` }, body: JSON.stringify(initialize) });
      issuer.up = false;
      const down = await ask();
      assert.equal(down.status, 503);
      assert.match(await down.text(), /could not be read/);
      issuer.up = true;
      const back = await ask();
      assert.equal(back.status, 200);
      await back.text();
    } finally {
      await fresh.close();
    }
    // Metadata that names another issuer is not this issuer's (RFC 8414 §3.3): its keys are never used.
    const impostor = await startIssuer([publicJwk], "https://someone-else.example");
    const misled = await createMcpServer(host).listen({ oauth: { issuer: impostor.url } });
    try {
      const bearer = await new SignJWT({ scope: "mcp:tools" }).setProtectedHeader({ alg: "ES256", kid: "es" }).setIssuer(impostor.url).setAudience(misled.url).setSubject("ada").setExpirationTime("5m").sign(signing);
      const answer = await fetch(misled.url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${bearer}` }, body: JSON.stringify(initialize) });
      assert.equal(answer.status, 503);
      assert.match(await answer.text(), /names the issuer .*someone-else/);
      assert.equal(impostor.jwksFetches, 0);
    } finally {
      await misled.close();
      await impostor.close();
    }
  });

  it("answers a browser client's CORS: preflight without a token, the challenge and session id readable, a foreign origin refused", async () => {
    const inspector = "http://localhost:6274";
    const served = await createMcpServer(host).listen({ oauth: { issuer: issuer.url }, allowedOrigins: [inspector] });
    try {
      const preflight = await fetch(served.url, { method: "OPTIONS", headers: { Origin: inspector, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, mcp-session-id" } });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), inspector);
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Authorization/);
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Mcp-Session-Id/);
      const foreign = await fetch(served.url, { method: "OPTIONS", headers: { Origin: "https://evil.example" } });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get("access-control-allow-origin"), null);
      const challenged = await fetch(served.url, { method: "POST", headers: { Origin: inspector, "Content-Type": "application/json" }, body: JSON.stringify(initialize) });
      assert.equal(challenged.status, 401);
      assert.equal(challenged.headers.get("access-control-allow-origin"), inspector);
      assert.match(challenged.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
      const metadata = await fetch(`${new URL(served.url).origin}/.well-known/oauth-protected-resource/mcp`, { headers: { Origin: inspector } });
      assert.equal(metadata.headers.get("access-control-allow-origin"), inspector);
      const foreignMetadata = await fetch(`${new URL(served.url).origin}/.well-known/oauth-protected-resource/mcp`, { headers: { Origin: "https://evil.example" } });
      assert.equal(foreignMetadata.status, 403, "the metadata is behind the same Host and Origin checks");
    } finally {
      await served.close();
    }
  });

  it("refuses bad OAuth options with invalid_options: both a token and oauth, a plain-http issuer elsewhere", async () => {
    await assert.rejects(mcp.listen({ token: "a-static-token-0123456789", oauth: { issuer: issuer.url } }), (error: CorralError) => error.code === "invalid_options" && /either token or oauth/.test(error.message));
    await assert.rejects(mcp.listen({ oauth: { issuer: "http://issuer.example" } }), (error: CorralError) => error.code === "invalid_options" && /https/.test(error.message));
  });

  it("corral mcp takes mcp.oauth and mcp.allowedOrigins from corral.json: the metadata, the challenge, CORS, and a token of the issuer for its URL", async () => {
    const project = tempDir("corral-oauth-cli-");
    const port = await freePort();
    writeFileSync(join(project.path, "echo.ts"), toolSource({ name: "echo", input: "z.object({ text: z.string() })", run: "return input.text;" }));
    writeFileSync(join(project.path, "corral.json"), JSON.stringify({ tools: ["echo.ts"], workers: 1, ledger: { store: ":memory:" }, mcp: { transport: "http", port, oauth: { issuer: issuer.url }, allowedOrigins: ["http://localhost:6274"] } }));
    const child = spawn(process.execPath, [BIN, "mcp", "--config", join(project.path, "corral.json")], { cwd: project.path, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, CORRAL_MCP_TOKEN: "" } });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let stderr = "";
    try {
      stderr = await untilServing(child);
      assert.match(stderr, /accepting the bearer tokens of http:\/\/127\.0\.0\.1/);
      assert.doesNotMatch(stderr, /bearer token \(/, "no static token is made");
      const url = `http://127.0.0.1:${port}/mcp`;
      const metadata = (await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
      assert.deepEqual([metadata.resource, metadata.authorization_servers], [url, [issuer.url]]);
      const bare = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify(initialize) });
      assert.equal(bare.status, 401);
      assert.match(bare.headers.get("www-authenticate") ?? "", /resource_metadata=/);
      // corral.json's mcp.allowedOrigins reaches the server: the Inspector's origin may read the challenge.
      const fromInspector = await fetch(url, { method: "POST", headers: { Origin: "http://localhost:6274", "Content-Type": "application/json" }, body: JSON.stringify(initialize) });
      assert.equal(fromInspector.headers.get("access-control-allow-origin"), "http://localhost:6274");
      const fromElsewhere = await fetch(url, { method: "POST", headers: { Origin: "http://localhost:9999", "Content-Type": "application/json" }, body: JSON.stringify(initialize) });
      assert.equal(fromElsewhere.status, 403);
      const bearer = await new SignJWT({ scope: "mcp:tools" }).setProtectedHeader({ alg: "ES256", kid: "es" }).setIssuer(issuer.url).setAudience(url).setSubject("cli-user").setExpirationTime("5m").sign(signing);
      const client = new Client({ name: "oauth-cli", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "from the cli" } })), "from the cli");
      await client.close();
    } finally {
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      project.remove();
    }
  });
});
