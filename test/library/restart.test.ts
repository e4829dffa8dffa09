/**
 * What an agent wrote survives its host being killed: a tool created through
 * the Anthropic loop (the real SDK against a scripted Messages API) and one
 * created over MCP (the SDK's real client against `corral mcp`) answer from a
 * host started afterwards on the same ledger, after SIGKILL, without being
 * written again; and the restarted MCP server lists it to a new client.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createHost } from "../../src/index.js";
import { BIN } from "../cli/cli-process.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";
import { textOf } from "../mcp/fixture.js";
import { startScriptedServer } from "../loop/scripted-server.js";

const LOOP_AUTHOR = fileURLToPath(new URL("../helpers/loop-author.js", import.meta.url));

const moduleOf = (name: string, body: string) => `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({ name: ${JSON.stringify(name)}, description: "written by an agent", input: z.object({ text: z.string() }), effects: [], run: ({ text }) => ${body} });`;

async function killed(pid: number | null | undefined, exited: Promise<unknown>): Promise<void> {
  assert.ok(typeof pid === "number", "the process has a pid");
  process.kill(pid, "SIGKILL");
  await exited;
}

describe("the library across SIGKILL", { timeout: 180_000 }, () => {
  it("serves a tool the Anthropic loop's agent wrote, after its host was killed", async () => {
    const before = childPids();
    const dir = tempDir();
    const ledger = join(dir.path, "ledger.db");
    const server = await startScriptedServer([
      { content: [{ type: "tool_use", id: "t1", name: "create_tool", input: { code: moduleOf("shout", "text.toUpperCase() + '!'") } }], stop_reason: "tool_use" },
      { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
    ]);
    try {
      const child = spawn(process.execPath, [LOOP_AUTHOR, ledger, server.url], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
      const exited = once(child, "exit");
      const [line] = (await Promise.race([once(createInterface({ input: child.stdout }), "line"), exited.then(() => [`exited: ${stderr}`])])) as string[];
      assert.match(line ?? "", /^authored \{"source":"agent:looper".*"versions":\[\{"name":"shout","version":1,"unchanged":false\}\]/);
      await killed(child.pid, exited);

      const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: ledger } });
      try {
        const result = await host.call("shout", { text: "kept" });
        assert.equal(result.ok && result.output, "KEPT!", JSON.stringify(result));
        assert.equal((await host.library.versions("shout")).length, 1, "nothing was written again");
      } finally {
        await host.close();
      }
    } finally {
      await server.close();
      dir.remove();
      await assertNoWorkersLeft(before);
    }
  });

  it("lists and serves a tool created over MCP after corral mcp was killed", async () => {
    const dir = tempDir("corral-mcp-restart-");
    const config = join(dir.path, "corral.json");
    writeFileSync(config, JSON.stringify({ workers: 1, cacheDir: "cache", ledger: { store: "ledger.db" }, createTool: { agent: "desktop" } }));
    const { CORRAL_LOG: _ignored, ...env } = process.env;
    const connect = async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--config", config], cwd: "/", env: env as Record<string, string>, stderr: "pipe" });
      const client = new Client({ name: "corral-restart-test", version: "1.0.0" });
      await client.connect(transport);
      return { client, transport };
    };
    try {
      const first = await connect();
      const created = await first.client.callTool({ name: "create_tool", arguments: { code: moduleOf("reverse_words", "text.split(' ').reverse().join(' ')") } });
      assert.notEqual(created.isError, true, textOf(created));
      const closed = new Promise<void>((resolve) => (first.transport.onclose = () => resolve()));
      await killed(first.transport.pid, closed);

      const second = await connect();
      try {
        const names = (await second.client.listTools()).tools.map((tool) => tool.name);
        assert.ok(names.includes("reverse_words"), `listed after the restart: ${names.join(", ")}`);
        const answer = await second.client.callTool({ name: "reverse_words", arguments: { text: "one two three" } });
        assert.equal(textOf(answer), "three two one");
      } finally {
        await second.client.close();
      }
    } finally {
      dir.remove();
    }
  });
});
