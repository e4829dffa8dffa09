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
 * The suite's client sends no Authorization header: `corral mcp --http
 * --no-token` serves it, as a user would start it, on 127.0.0.1 (its Host
 * and Origin checks hold; no token is what --no-token allows on loopback).
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
import { BIN } from "../cli/cli-process.js";
import type { CorralError } from "../../src/index.js";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createMcpServer } from "../../src/adapters/mcp/index.js";
import { tempDir, withHost } from "../helpers/host.js";
import { CONFORMANCE_TOOLS } from "./conformance-tools.js";
import { freePort, untilServing } from "./fixture.js";

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

/** `corral mcp --http --no-token` on a project of the fixture tools, as a user would start it; resolves once it serves. */
async function startCorralMcp(): Promise<{ url: string; stop(): Promise<void> }> {
  const project = tempDir("corral-conformance-project-");
  writeFileSync(join(project.path, "conformance-tools.ts"), CONFORMANCE_TOOLS);
  writeFileSync(
    join(project.path, "corral.json"),
    JSON.stringify({
      tools: ["conformance-tools.ts"],
      workers: 1,
      ledger: { store: ":memory:" },
      effects: { plugin: { sample_model: "allow" } },
      capabilities: { sampling: { maxTokensPerCall: 1000 } },
    }),
  );
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "--no-token", "--port", String(port), "--config", join(project.path, "corral.json")], { cwd: project.path, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stderr = await untilServing(child);
  assert.match(stderr, /serving without a token/);
  return {
    url: `http://localhost:${port}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      project.remove();
    },
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
    const corral = await startCorralMcp();
    const out = tempDir("corral-conformance-");
    try {
      const failures: string[] = [];
      let passed = 0;
      for (const scenario of SCENARIOS) {
        const dir = join(out.path, scenario);
        const run = await runScenario(corral.url, scenario, dir);
        const checks = checksIn(dir);
        passed += checks.filter((check) => check.status === "SUCCESS").length;
        if (checks.length === 0) failures.push(`${scenario}: no checks written (exit ${run.code}): ${run.output.slice(-400)}`);
        for (const check of checks.filter((each) => each.status === "FAILURE")) failures.push(`${scenario}: ${check.id}: ${check.errorMessage ?? "failed"}`);
      }
      assert.deepEqual(failures, []);
      assert.ok(passed >= SCENARIOS.length, `only ${passed} checks passed`);
    } finally {
      await corral.stop();
      out.remove();
    }
  });

  it("serves without a token only on a loopback address", async () => {
    await withHost(async (host) => {
      const mcp = createMcpServer(host);
      await assert.rejects(mcp.listen({ host: "0.0.0.0", token: false }), (error: CorralError) => error.code === "invalid_options" && /only for a loopback address/.test(error.message));
      const open = await mcp.listen({ token: false });
      const answer = await fetch(open.url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) });
      assert.equal(answer.status, 200);
      await answer.text();
      await mcp.close();
    });
  });
});
