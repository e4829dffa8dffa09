/**
 * @module test/mcp/mcp-conformance.test
 * The official MCP conformance suite (@modelcontextprotocol/conformance,
 * its own CLI and checks) against corral's Streamable HTTP server, with the
 * suite's fixture tools written as corral tools (conformance-tools.ts) and
 * run in the sandbox as any plugin's. Every scenario a tools-only server can
 * pass must pass; the suite's resources, prompts and completion scenarios
 * test what corral does not serve, and server-sse-polling tests stream
 * resumption (SEP-1699), which corral does not offer (docs/mcp.md).
 *
 * The suite's client sends no Authorization header, so it reaches the
 * server through a proxy on 127.0.0.1 that adds the bearer token and
 * passes everything else (the Host header included) as it came.
 *
 * The suite's CLI needs Node 22 or later (fs.globSync): on an older Node it
 * runs under CORRAL_CONFORMANCE_NODE (a newer node binary) when set, and
 * otherwise this file says so and runs nothing (CI runs the whole suite on
 * Node 26).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createMcpServer } from "../../src/adapters/mcp/index.js";
import { tempDir, withHost } from "../helpers/host.js";
import { CONFORMANCE_TOOLS } from "./conformance-tools.js";

const TOKEN = "conformance-token-0123456789";
const major = Number(process.versions.node.split(".")[0]);
const cliNode = major >= 22 ? process.execPath : process.env.CORRAL_CONFORMANCE_NODE;
const cli = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");

/** The scenarios of a tools-only server (the suite's list, 0.1.16). */
const SCENARIOS = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "json-schema-2020-12",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

/** Forwards every request to `target` with the bearer token added. */
async function tokenProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${TOKEN}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
    res.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/mcp`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

type Check = { id: string; status: string; errorMessage?: string };

function runScenario(url: string, scenario: string, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cliNode as string, [cli, "server", "--url", url, "--scenario", scenario, "--output-dir", outputDir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Every check the run wrote (checks.json files under the output folder). */
function checksIn(dir: string): Check[] {
  const found: Check[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name === "checks.json") found.push(...(JSON.parse(readFileSync(join(entry.parentPath, entry.name), "utf8")) as Check[]));
  }
  return found;
}

describe("MCP: the official conformance suite, tools scenarios", { timeout: 600_000 }, () => {
  it("passes every scenario a tools-only server can pass, with the suite's fixture tools written as corral tools", { skip: cliNode === undefined ? `the suite's CLI needs Node 22 or later (this is ${process.version}; set CORRAL_CONFORMANCE_NODE to a newer node); CI runs it on Node 26` : false }, async () => {
    await withHost(
      async (host) => {
        const loaded = await host.load({ source: "plugin:conformance", code: CONFORMANCE_TOOLS });
        assert.ok(loaded.ok, JSON.stringify(loaded));
        const mcp = createMcpServer(host, { name: "corral-conformance", version: "1.0.0" });
        const http = await mcp.listen({ token: TOKEN, allowedHosts: ["localhost", "127.0.0.1", "[::1]"] });
        const proxy = await tokenProxy(new URL(http.url));
        const out = tempDir("corral-conformance-");
        try {
          const failures: string[] = [];
          let passed = 0;
          for (const scenario of SCENARIOS) {
            const dir = join(out.path, scenario);
            const run = await runScenario(proxy.url, scenario, dir);
            const checks = checksIn(dir);
            const bad = checks.filter((check) => check.status === "FAILURE");
            passed += checks.filter((check) => check.status === "SUCCESS").length;
            if (checks.length === 0) failures.push(`${scenario}: no checks written (exit ${run.code}): ${run.output.slice(-400)}`);
            for (const check of bad) failures.push(`${scenario}: ${check.id}: ${check.errorMessage ?? "failed"}`);
          }
          assert.deepEqual(failures, []);
          assert.ok(passed >= SCENARIOS.length, `only ${passed} checks passed`);
        } finally {
          await proxy.close();
          await mcp.close();
          out.remove();
        }
      },
      {
        effects: { plugin: { sample_model: "allow" } },
        capabilities: { sampling: { maxTokensPerCall: 1000, maxTokensPerHour: 100_000 } },
      },
    );
  });
});
