/**
 * `corral mcp --config <file>` as a desktop client runs it, with the MCP
 * SDK's real Client over stdio: the config turns on create_tool (the agent
 * writes a tool; list_changed; it is listed and callable at once, under
 * agent:<id> in the ledger), Code Mode (run_code calls that new tool), and
 * the fetch_page plugin's network effect and grant for one local origin
 * (a page there is read; another origin is refused); the config's ledger
 * then holds the agent's and the plugin's records.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, runCli } from "../cli/cli-process.js";
import { tempDir } from "../helpers/host.js";
import { textOf, watchListChanged } from "./fixture.js";

const FETCH_PAGE = fileURLToPath(new URL("../../../plugins/fetch-page", import.meta.url));

const WORD_COUNT = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "word_count",
  description: "Counts words in a text",
  input: z.object({ text: z.string() }),
  effects: [],
  run: ({ text }) => ({ words: text.split(/\\s+/).filter(Boolean).length }),
});`;

async function startSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>allowed by corral.json</title><p>served on 127.0.0.1</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("corral mcp with a corral.json", { timeout: 240_000 }, () => {
  it("offers create_tool, run_code and a granted fetch to a real client", async () => {
    const dir = tempDir("corral-mcp-config-");
    const site = await startSite();
    const config = join(dir.path, "corral.json");
    writeFileSync(
      config,
      `{
  "tools": [${JSON.stringify(FETCH_PAGE)}],
  "workers": 1,
  "cacheDir": "cache",
  "ledger": { "store": "ledger.db" },
  "createTool": { "agent": "desktop" },
  "codeMode": { "timeoutMs": 20000 },
  "effects": { "plugin": { "net_read": "allow" } },
  "capabilities": { "sources": { "plugin": { "net": { "allow": [${JSON.stringify(site.origin)}] } } } },
}`,
    );
    const { CORRAL_LOG: _ignored, ...env } = process.env;
    // Started from another folder: the config alone says where everything is.
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--config", config], cwd: "/", env: env as Record<string, string>, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "corral-config-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const changed = watchListChanged(client);
      const before = (await client.listTools()).tools.map((tool) => tool.name);
      for (const name of ["create_tool", "run_code", "fetch_page"]) assert.ok(before.includes(name), `${name} in ${before.join(", ")}\n${stderr}`);
      assert.ok(!before.includes("word_count"));

      const listChanged = changed.next(60_000);
      const created = await client.callTool({ name: "create_tool", arguments: { code: WORD_COUNT } });
      assert.notEqual(created.isError, true, textOf(created));
      assert.match(textOf(created), /Registered 1 tool \(word_count v1\) as agent:desktop/);
      await listChanged;
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === "word_count"), "the new tool is listed");
      assert.deepEqual((await client.callTool({ name: "word_count", arguments: { text: "one two three" } })).structuredContent, { words: 3 });

      const script = await client.callTool({ name: "run_code", arguments: { code: 'const a = await tools.word_count({ text: "a b" }); return { total: a.words * 10 };' } });
      assert.notEqual(script.isError, true, textOf(script));
      assert.match(textOf(script), /"total":\s*20/);

      const page = await client.callTool({ name: "fetch_page", arguments: { url: `${site.origin}/` } });
      assert.notEqual(page.isError, true, textOf(page));
      assert.match(textOf(page), /^allowed by corral\.json \(http:\/\/127\.0\.0\.1:\d+\/\)/);
      const elsewhere = await client.callTool({ name: "fetch_page", arguments: { url: "http://169.254.169.254/latest/meta-data/" } });
      assert.equal(elsewhere.isError, true);
      assert.match(textOf(elsewhere), /is not on this source's net allow-list/);
    } finally {
      await client.close();
      await site.close();
    }
    const audit = await runCli(["--config", config, "audit", "--json"], { cwd: "/" });
    assert.equal(audit.code, 0, audit.stderr);
    const sources = (JSON.parse(audit.stdout) as { source: string }[]).map((row) => row.source).sort();
    for (const source of ["agent:desktop", "plugin:corral/fetch-page"]) assert.ok(sources.includes(source), `${source} in the config's ledger: ${sources.join(", ")}`);
    dir.remove();
  });
});
