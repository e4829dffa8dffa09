/**
 * corral's MCP server tells its sessions when ANOTHER process changes what
 * they may call: a host in a process of its own, sharing the ledger, strikes
 * a source into quarantine; the CLI (a third process) releases it and
 * quarantines it again. Each time the MCP SDK's own Client, connected over
 * Streamable HTTP, receives tools/list_changed and lists the tools as the
 * ledger now says. On a SQLite file and on a PostgreSQL ledger.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpServer } from "../../src/adapters/mcp/index.js";
import { createHost, type HostEvent } from "../../src/index.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";
import { runCli } from "../cli/cli-process.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";
import { watchListChanged } from "./fixture.js";

const FLEET_HOST = fileURLToPath(new URL("../helpers/fleet-host.js", import.meta.url));
/** The source fleet-host.ts loads its hostile `spin` under. */
const SOURCE = "agent:fleet-hostile";
const TOKEN = "elsewhere-token-0123456789abcdef";

const schemas = testSchemas("mcp_elsewhere");
after(() => schemas.dropAll());

/** Runs fleet-host.ts on `ledger` until it has struck `spin` `strikes` times (its policy quarantines at 3), then ends it. */
async function strikeFromAnotherHost(ledger: string, strikes: number): Promise<string[]> {
  const child = spawn(process.execPath, [FLEET_HOST, ledger, "3"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const outcomes: string[] = [];
  const exited = once(child, "exit");
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === "ready") child.stdin.write(`burst ${strikes}\n`);
    else if (line.startsWith("result ")) outcomes.push(line.split(" ")[1] ?? "");
    else if (line === "burst done") {
      child.stdin.write("exit\n");
      break;
    }
  }
  const [code] = await exited;
  assert.equal(code, 0, `the other host failed: ${stderr.slice(-2_000)}`);
  return outcomes;
}

function suite(kind: string, ledgerIn: (dir: string) => string): void {
  describe(`MCP sessions and changes made elsewhere, on ${kind}`, { timeout: 180_000 }, () => {
    it("sends tools/list_changed when another host quarantines a source and the CLI releases and quarantines it", async () => {
      const pidsBefore = childPids();
      const dir = tempDir("corral-mcp-elsewhere-");
      const ledger = ledgerIn(dir.path);
      const events: HostEvent[] = [];
      const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: ledger } });
      host.on((event) => events.push(event));
      const mcp = createMcpServer(host);
      const client = new Client({ name: "corral-test", version: "1.0.0" });
      try {
        // The same source the other host runs, and one that no one touches.
        assert.ok((await host.load({ source: SOURCE, code: toolSource({ name: "spin", extra: "limits: { timeoutMs: 40 },", run: "for (;;) {}" }) })).ok);
        assert.ok((await host.load({ source: "agent:bystander", code: toolSource({ name: "calm", run: 'return "calm";' }) })).ok);
        const http = await mcp.listen({ token: TOKEN });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
        const changed = watchListChanged(client);
        const names = async () => (await client.listTools()).tools.map((tool) => tool.name).sort();
        assert.deepEqual(await names(), ["calm", "spin"]);

        let next = changed.next(20_000);
        assert.deepEqual(await strikeFromAnotherHost(ledger, 3), ["timeout", "timeout", "timeout"]);
        await next;
        assert.deepEqual(await names(), ["calm"], "the struck source's tool left the list");
        const refused = await client.callTool({ name: "spin", arguments: {} });
        assert.equal(refused.isError, true);

        next = changed.next(20_000);
        const released = await runCli(["release", SOURCE, "--reason", "fixed upstream", "--ledger", ledger], { cwd: dir.path });
        assert.equal(released.code, 0, released.stderr);
        await next;
        assert.deepEqual(await names(), ["calm", "spin"]);

        next = changed.next(20_000);
        const quarantined = await runCli(["quarantine", SOURCE, "--reason", "by an operator", "--ledger", ledger], { cwd: dir.path });
        assert.equal(quarantined.code, 0, quarantined.stderr);
        await next;
        assert.deepEqual(await names(), ["calm"]);

        const seen = events.filter((event) => event.type === "state_changed_elsewhere").map((event) => (event.type === "state_changed_elsewhere" ? [event.source, event.state.state] : []));
        assert.deepEqual(seen, [[SOURCE, "quarantined"], [SOURCE, "active"], [SOURCE, "quarantined"]], "one event per change, none for the bystander");
        assert.equal(events.filter((event) => event.type === "quarantine" || event.type === "release").length, 0, "none of it was this host's own");
      } finally {
        await client.close().catch(() => undefined);
        await mcp.close();
        await host.close();
        dir.remove();
      }
      await assertNoWorkersLeft(pidsBefore);
    });
  });
}

suite("a SQLite ledger file", (dir) => join(dir, "ledger.db"));
if (SKIP_POSTGRES !== false) it("MCP sessions and changes made elsewhere, on a PostgreSQL ledger", { skip: SKIP_POSTGRES }, () => undefined);
else suite("a PostgreSQL ledger", () => `${postgresUrl()}${postgresUrl().includes("?") ? "&" : "?"}schema=${schemas.next()}`);
