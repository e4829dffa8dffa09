/**
 * `corral mcp <dir>` as a desktop client runs it: the real bin spawned by
 * the MCP SDK's StdioClientTransport. List, call, a hidden tool, a hostile
 * tool struck into quarantine (list_changed, a shorter list, a refused
 * call), a cancelled call; then the ledger, read with `corral audit`, holds
 * what ran, with the session as each strike's caller.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, runCli } from "../cli/cli-process.js";
import { tempDir } from "../helpers/host.js";
import { rpcError, textOf, watchListChanged, writeTools } from "./fixture.js";

type AuditRow = { source: string; tools: Array<{ tool: string; totals: { outcomes: Record<string, number> } }>; state: { state: string } };

describe("corral mcp over stdio", { timeout: 240_000 }, () => {
  it("serves a real client: list, call, hidden, hostile into quarantine, cancel; the ledger keeps the session", async () => {
    const dir = tempDir();
    const ledger = join(dir.path, "ledger.db");
    const cache = join(dir.path, "cache");
    const tools = writeTools(join(dir.path, "tools"));
    const { CORRAL_LOG: _ignored, ...env } = process.env;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--cache-dir", cache, "--ledger", ledger, "mcp", tools],
      env: env as Record<string, string>,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "corral-stdio-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const changed = watchListChanged(client);
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, ["echo", "slow", "spin", "tool_search", "writer"], stderr);
      assert.deepEqual((await client.callTool({ name: "echo", arguments: { text: "over stdio" } })).structuredContent, { said: "over stdio" });
      assert.deepEqual(await rpcError(client.callTool({ name: "secret", arguments: {} })), { code: -32602, message: "Unknown tool: secret (tools/list names the tools this session may call)" });

      // Three timeouts are three strikes: the default policy quarantines the source.
      const quarantined = changed.next(60_000);
      for (let i = 0; i < 3; i++) {
        const hostile = await client.callTool({ name: "spin", arguments: {} });
        assert.equal(hostile.isError, true);
        assert.match(textOf(hostile), /^timeout: /);
      }
      await quarantined;
      assert.ok(!(await client.listTools()).tools.some((tool) => tool.name === "spin"), "the list shrank");
      assert.match(textOf(await client.callTool({ name: "spin", arguments: {} })), /^quarantined: /);

      const abort = new AbortController();
      const call = client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, {
        signal: abort.signal,
        timeout: 90_000,
        onprogress: () => abort.abort(),
      });
      await assert.rejects(call);
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "after" } })), '{"said":"after"}', "the server serves on");
    } finally {
      await client.close();
    }
    // The server exits when its client goes; the ledger is then the file's alone.
    const audit = await runCli(["--ledger", ledger, "audit", "--json"], { cwd: dir.path });
    assert.equal(audit.code, 0, audit.stderr);
    const rows = JSON.parse(audit.stdout) as AuditRow[];
    const spin = rows.find((row) => row.tools.some((tool) => tool.tool === "spin"));
    assert.equal(spin?.state.state, "quarantined");
    const slow = rows.find((row) => row.tools.some((tool) => tool.tool === "slow"));
    assert.ok((slow?.tools[0]?.totals.outcomes.cancelled ?? 0) >= 1, `the cancelled call is recorded: ${audit.stdout}`);
    const report = await runCli(["--ledger", ledger, "audit", spin?.source as string, "--json"], { cwd: dir.path });
    const strikes = (JSON.parse(report.stdout) as { strikes: Array<{ caller?: string }> }).strikes;
    assert.equal(strikes.length, 3);
    assert.ok(strikes.every((strike) => strike.caller === strikes[0]?.caller && /^mcp:/.test(strike.caller ?? "")), JSON.stringify(strikes));
    dir.remove();
  });
});
