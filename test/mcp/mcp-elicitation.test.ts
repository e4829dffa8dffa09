/**
 * Effects whose policy is `ask`, put to the MCP client's user through
 * elicitation (createMcpServer's `elicitApprovals`), with the SDK's real
 * Client: the question names the tool, its source, the effect and the
 * target; accepted, the call runs; declined, it is blocked; a client
 * without the capability, or a server that does not ask, is refused with
 * the config key that would allow it. A Code Mode script's tool calls are
 * asked about the same way.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type CorralMcpServer } from "../../src/adapters/mcp/index.js";
import { createHost, type Host } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";
import { textOf } from "./fixture.js";

const TOKEN = "test-token-0123456789abcdef";

const tool = (name: string, effects: string[], body: string) => `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "elicitation test tool",
  input: z.object({ url: z.string().optional() }),
  effects: ${JSON.stringify(effects)},
  async run(input) { ${body} },
});`;

type Answer = "accept" | "decline" | "cancel" | { action: "accept"; content: Record<string, boolean> };

describe("MCP elicitation for effects whose policy is ask", { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof tempDir>;
  let pages: HttpServer;
  let origin: string;
  let host: Host;
  let asking: CorralMcpServer;
  let silent: CorralMcpServer;
  let pidsBefore: number[];
  const clients: Client[] = [];

  /** A client of `server`; `answer` given: it declares elicitation and answers so, recording each question. */
  async function connect(server: CorralMcpServer, answer?: Answer): Promise<{ client: Client; questions: string[] }> {
    const questions: string[] = [];
    const client = new Client({ name: "elicit-test", version: "1.0.0" }, answer === undefined ? {} : { capabilities: { elicitation: {} } });
    if (answer !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params.message);
        return typeof answer === "string" ? { action: answer } : answer;
      });
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    clients.push(client);
    return { client, questions };
  }

  before(async () => {
    pidsBefore = childPids();
    dir = tempDir();
    pages = createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("the page"));
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    host = createHost({
      workers: 1,
      cacheDir: join(dir.path, "cache"),
      ledger: { store: join(dir.path, "ledger.db") },
      effects: { agent: { net_read: "ask", exec: "ask" } },
      capabilities: { net: { allow: [origin] } },
      codeMode: {},
    });
    for (const [name, effects, body] of [
      ["fetcher", ["net_read"], "const r = await fetch(input.url); return await r.text();"],
      ["runner", ["exec"], 'return "ran";'],
      ["twice", ["net_read"], "const a = await fetch(input.url); const b = await fetch(input.url + 'again'); return (await a.text()) + ' ' + (await b.text());"],
    ] as const) {
      const loaded = await host.load({ source: `agent:${name}`, code: tool(name, [...effects], body) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
    }
    asking = createMcpServer(host, { elicitApprovals: true });
    silent = createMcpServer(host);
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await asking.close();
    await silent.close();
    await host.close();
    await new Promise<void>((resolve) => pages.close(() => resolve()));
    dir.remove();
    await assertNoWorkersLeft(pidsBefore);
  });

  it("asks once per use, naming the tool, its source, the effect and the URL; accepted, the fetch runs", async () => {
    const { client, questions } = await connect(asking, "accept");
    const result = await client.callTool({ name: "fetcher", arguments: { url: `${origin}/page?secret=1` } });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), "the page");
    assert.equal(questions.length, 1, "one question: the call starts unasked, its fetch is asked about");
    assert.equal(questions[0], `Allow the tool "fetcher" (source agent:fetcher) to use the "net_read" effect: fetch GET ${origin}/page?`);
  });

  it("asks each use of a call, unless the user allowed the rest of the call's uses of that effect", async () => {
    const each = await connect(asking, "accept");
    assert.equal(textOf(await each.client.callTool({ name: "twice", arguments: { url: `${origin}/page` } })), "the page the page");
    assert.equal(each.questions.length, 2);
    const rest = await connect(asking, { action: "accept", content: { allow_rest_of_call: true } });
    assert.equal(textOf(await rest.client.callTool({ name: "twice", arguments: { url: `${origin}/page` } })), "the page the page");
    assert.equal(rest.questions.length, 1, "the second fetch of the call was allowed by the first answer");
    await rest.client.callTool({ name: "twice", arguments: { url: `${origin}/page` } });
    assert.equal(rest.questions.length, 2, "a new call is asked again");
  });

  it("asks about an effect the host does not perform (exec) as the call starts; accepted, it runs", async () => {
    const { client, questions } = await connect(asking, "accept");
    assert.equal(textOf(await client.callTool({ name: "runner", arguments: {} })), "ran");
    assert.deepEqual(questions, ['Allow the tool "runner" (source agent:runner) to run with the effects exec? What it will reach is not known before it runs.']);
  });

  it("blocks what the user declines or dismisses", async () => {
    for (const answer of ["decline", "cancel"] as const) {
      const { client, questions } = await connect(asking, answer);
      const fetched = await client.callTool({ name: "fetcher", arguments: { url: `${origin}/page` } });
      assert.equal(fetched.isError, true);
      assert.match(textOf(fetched), new RegExp(`^blocked: .*the MCP client's user ${answer === "decline" ? "declined" : "dismissed"} the question: Allow the tool "fetcher"`));
      const ran = await client.callTool({ name: "runner", arguments: {} });
      assert.match(textOf(ran), /^blocked: the call was blocked: the MCP client's user/);
      assert.equal(questions.length, 2);
    }
  });

  it("refuses, naming the config key, when the client cannot be asked or the server does not ask", async () => {
    for (const [server, why] of [[asking, "this MCP client cannot be asked"], [silent, "nobody can be asked to approve it here"]] as const) {
      const { client } = await connect(server);
      const ran = await client.callTool({ name: "runner", arguments: {} });
      assert.equal(ran.isError, true);
      assert.match(textOf(ran), new RegExp(`^blocked: .*"runner" \\(agent:runner\\) needs exec, whose policy is "ask", and ${why}.*set effects\\.agent\\.exec to "allow" in corral\\.json`));
    }
    const { client, questions } = await connect(silent, "accept");
    assert.match(textOf(await client.callTool({ name: "runner", arguments: {} })), /effects\.agent\.exec/);
    assert.equal(questions.length, 0, "a server without elicitApprovals never asks");
  });

  it("asks about the tools a Code Mode script calls, as about a direct call", async () => {
    const { client, questions } = await connect(asking, "accept");
    const script = await client.callTool({ name: "run_code", arguments: { code: "return await tools.runner({});" } });
    assert.equal(script.isError, undefined, textOf(script));
    assert.match(textOf(script), /ran/);
    assert.equal(questions.length, 1);
    assert.match(questions[0] ?? "", /^Allow the tool "runner" \(source agent:runner\) to run with the effects exec\?/);
  });

  it("asks over Streamable HTTP on the call's own stream", async () => {
    const http = await asking.listen({ token: TOKEN });
    const questions: string[] = [];
    const client = new Client({ name: "elicit-http", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params.message);
      return { action: "accept" };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    clients.push(client);
    assert.equal(textOf(await client.callTool({ name: "fetcher", arguments: { url: `${origin}/page` } })), "the page");
    assert.equal(questions.length, 1);
  });
});
