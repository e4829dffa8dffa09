/**
 * The README's MCP client configs, used as a client uses them: the stdio
 * one's command and arguments (`npx -y corral` is this build's bin) spawned
 * by the SDK's StdioClientTransport, and the HTTP one's URL and headers
 * (its token from CORRAL_MCP_TOKEN, its port swapped for a free one) against
 * `corral mcp --http` started as a user would, then stopped with SIGTERM.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN } from "../cli/cli-process.js";
import { tempDir } from "../helpers/host.js";
import { freePort, untilServing, writeTools } from "./fixture.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

type ServerConfig = { command?: string; args?: string[]; type?: string; url?: string; headers?: Record<string, string> };

function config(name: string): ServerConfig {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const match = new RegExp(`<!-- config: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(readme);
  assert.ok(match, `the README has a ${name} config`);
  return (JSON.parse(match[1] as string) as { mcpServers: { corral: ServerConfig } }).mcpServers.corral;
}

/** `npx -y corral <args>` as this build: node bin/corral.js <args>. */
function corralArgs(server: ServerConfig): string[] {
  assert.equal(server.command, "npx");
  const args = server.args ?? [];
  assert.deepEqual(args.slice(0, 2), ["-y", "corral"]);
  return args.slice(2);
}

const { CORRAL_LOG: _ignored, ...ENV } = process.env as Record<string, string>;

describe("the README's MCP client configs", { timeout: 180_000 }, () => {
  it("stdio: the config's command serves the project's tools, from whatever folder the client starts it in", async () => {
    const dir = tempDir();
    writeTools(join(dir.path, "tools"));
    writeFileSync(join(dir.path, "corral.json"), '{ "tools": ["./tools"] }\n');
    const args = corralArgs(config("mcp-stdio")).map((arg) => arg.replace("/path/to/project", dir.path));
    const client = new Client({ name: "readme-stdio", version: "1.0.0" });
    try {
      // A desktop client starts servers in a folder of its own choosing.
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], cwd: tmpdir(), env: ENV, stderr: "ignore" }));
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === "echo"));
    } finally {
      await client.close();
      dir.remove();
    }
  });

  it("HTTP: the config's URL and Authorization header reach corral mcp --http", async () => {
    const dir = tempDir();
    const tools = writeTools(join(dir.path, "tools"));
    const server = config("mcp-http");
    const token = "readme-token-0123456789abcdef";
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, "mcp", "--http", "--port", String(port), tools], { cwd: dir.path, env: { ...ENV, CORRAL_MCP_TOKEN: token }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const client = new Client({ name: "readme-http", version: "1.0.0" });
    try {
      stderr = await untilServing(child);
      assert.ok(!stderr.includes("bearer token ("), "a token from CORRAL_MCP_TOKEN is not printed");
      const url = new URL((server.url as string).replace(/:\d+\//, `:${port}/`));
      const headers = Object.fromEntries(Object.entries(server.headers ?? {}).map(([key, value]) => [key, value.replace("${CORRAL_MCP_TOKEN}", token)]));
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === "echo"));
    } finally {
      await client.close();
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      dir.remove();
    }
  });
});
