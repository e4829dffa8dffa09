/**
 * The commands' own sections of corral.json, through the real bin: `mcp`
 * (transport http, port, host) serves Streamable HTTP where the file says,
 * to a real client with the token from the environment, until SIGTERM;
 * `--stdio` overrides it; `dashboard.port` is the dashboard's port.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tempDir } from "../helpers/host.js";
import { BIN, runCli, toolModule, writeTool } from "./cli-process.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the bin, waits until `ready` matches its output (stdout and stderr), answers the child and what it said. */
async function startUntil(args: string[], cwd: string, ready: RegExp, env: Record<string, string> = {}) {
  const { CORRAL_LOG: _ignored, ...base } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | string | null>((resolve) => child.once("close", (code, signal) => resolve(code ?? signal)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then((code) => reject(new Error(`exited ${code} before it was ready:\n${output}`)));
  });
  return { child, exited, output: () => output };
}

describe("corral.json's command sections", { timeout: 180_000 }, () => {
  const dir = tempDir("corral-cli-sections-");
  let mcpPort = 0;
  let dashboardPort = 0;
  before(async () => {
    mkdirSync(join(dir.path, "tools"));
    writeTool(join(dir.path, "tools"), "ping.ts", toolModule({ name: "ping", run: 'return "pong";' }));
    mcpPort = await freePort();
    dashboardPort = await freePort();
    writeFileSync(
      join(dir.path, "corral.json"),
      JSON.stringify({ tools: ["./tools"], workers: 1, mcp: { transport: "http", port: mcpPort, host: "127.0.0.1" }, dashboard: { port: dashboardPort } }),
    );
  });
  after(() => dir.remove());

  it("mcp serves HTTP on the file's port, with the token from CORRAL_MCP_TOKEN", async () => {
    const token = "from-the-environment";
    const server = await startUntil(["mcp"], dir.path, /serving Streamable HTTP at http:\/\/127\.0\.0\.1:\d+\/mcp/, { CORRAL_MCP_TOKEN: token });
    try {
      assert.match(server.output(), new RegExp(`http://127\\.0\\.0\\.1:${mcpPort}/mcp`));
      const client = new Client({ name: "sections", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${mcpPort}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === "ping"));
      await client.close();
    } finally {
      server.child.kill("SIGTERM");
    }
    assert.equal(await server.exited, 0, server.output());
  });

  it("--stdio overrides the file's transport", async () => {
    // stdin is closed at once: a stdio server ends as its client goes.
    const run = await runCli(["mcp", "--stdio"], { cwd: dir.path });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /Streamable HTTP/);
  });

  it("dashboard listens on the file's port", async () => {
    const ran = await runCli(["run", "ping"], { cwd: dir.path });
    assert.equal(ran.code, 0, ran.stderr);
    const dashboard = await startUntil(["dashboard"], dir.path, /\(Ctrl-C to stop\)/);
    try {
      assert.match(dashboard.output(), new RegExp(`http://127\\.0\\.0\\.1:${dashboardPort}/`));
    } finally {
      dashboard.child.kill("SIGTERM");
    }
    assert.equal(await dashboard.exited, 0, dashboard.output());
  });
});
