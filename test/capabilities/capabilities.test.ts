/**
 * @module test/capabilities/capabilities.test
 * fetch, ctx.fs and ctx.state end to end: tools written as an agent would,
 * a real host and worker, a real HTTP server on 127.0.0.1, a real temporary
 * workspace and ledger file. Allowed uses work; undeclared effects, missing
 * grants, refused targets and the gate answer as the issue says; the gate's
 * wait does not count against the call; every use is in the audit.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHost, outcomeOf, type GateCall, type HostOptions, type ToolResult } from "../../src/index.js";
import { SqliteCapabilityStore } from "../../src/capabilities/index.js";
import { startServer, type TestServer } from "../../src/capabilities/testing-server.js";
import { childPids, assertNoWorkersLeft, tempDir } from "../helpers/host.js";
import { runCli } from "../cli/cli-process.js";

let server: TestServer;
let dir: { path: string; remove: () => void };
let workspace: string;

before(async () => {
  server = await startServer({
    "/page": (_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<title>Hi</title>"),
    "/away": (_req, res) => res.writeHead(302, { location: "http://10.0.0.1/" }).end(),
  });
  dir = tempDir("corral-cap-");
  workspace = join(dir.path, "workspace");
  mkdirSync(join(workspace, "notes"), { recursive: true });
  writeFileSync(join(workspace, "notes", "a.md"), "# alpha");
});
after(async () => {
  await server.close();
  dir.remove();
});

const tool = (name: string, effects: string[], body: string) => `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "capability test tool",
  input: z.object({ arg: z.string().optional() }),
  effects: ${JSON.stringify(effects)},
  async run(input, ctx) { ${body} },
});`;

async function withCapHost(fn: (host: ReturnType<typeof createHost>) => Promise<void>, extra: HostOptions = {}): Promise<void> {
  const before = childPids();
  const host = createHost({
    workers: 1,
    cacheDir: join(dir.path, "cache"),
    ledger: { store: join(dir.path, "ledger.db") },
    effects: { agent: { net_read: "allow", net_write: "allow", read: "allow", fs_write: "allow", state_write: "allow" } },
    capabilities: { net: { allow: [server.origin] }, fs: { root: workspace }, state: { quotaBytes: 4096, maxKeys: 20 } },
    ...extra,
  });
  try {
    await fn(host);
  } finally {
    await host.close();
    await assertNoWorkersLeft(before);
  }
}

async function load(host: ReturnType<typeof createHost>, name: string, effects: string[], body: string): Promise<void> {
  const loaded = await host.load({ source: `agent:${name}`, code: tool(name, effects, body) });
  assert.ok(loaded.ok, JSON.stringify(loaded));
}

const structured = (result: ToolResult) => {
  assert.ok(result.ok, JSON.stringify(result));
  return result.ok ? result.structured : undefined;
};
const failure = (result: ToolResult) => {
  assert.equal(result.ok, false, JSON.stringify(result));
  return result.ok ? { kind: "", message: "" } : result.error;
};

describe("capabilities end to end", { timeout: 120_000 }, () => {
  it("fetch: an allowed origin answers a standard Response; refusals name the target", async () => {
    await withCapHost(async (host) => {
      await load(host, "get_page", ["net_read"], `
        const response = await fetch(input.arg);
        return { status: response.status, ok: response.ok, type: response.headers.get("content-type"), text: await response.text(), url: response.url };`);
      assert.deepEqual(structured(await host.call("get_page", { arg: `${server.origin}/page` })), {
        status: 200, ok: true, type: "text/html; charset=utf-8", text: "<title>Hi</title>", url: `${server.origin}/page`,
      });
      assert.match(failure(await host.call("get_page", { arg: "http://127.0.0.2:9/" })).message, /fetch failed: http:\/\/127\.0\.0\.2:9 is not on this source's net allow-list/);
      assert.match(failure(await host.call("get_page", { arg: `${server.origin}/away` })).message, /redirect to http:\/\/10\.0\.0\.1\/ was refused/);
      assert.match(failure(await host.call("get_page", { arg: "file:///etc/passwd" })).message, /file: URLs are never fetched/);
    });
  });

  it("an undeclared effect is a tool_error naming it; a missing grant names the option", async () => {
    await withCapHost(async (host) => {
      await load(host, "sneaky", [], `return await fetch("${server.origin}/page").then((r) => r.status);`);
      const undeclared = failure(await host.call("sneaky", {}));
      assert.equal(undeclared.kind, "tool_error");
      assert.match(undeclared.message, /fetch GET needs the "net_read" effect, which "sneaky" did not declare/);
      await load(host, "poster", ["net_read"], `return await fetch("${server.origin}/page", { method: "POST", body: "x" }).then((r) => r.status);`);
      assert.match(failure(await host.call("poster", {})).message, /needs the "net_write" effect/);
      await load(host, "writer", ["read"], `await ctx.fs.writeFile("x.txt", "x"); return "wrote";`);
      assert.match(failure(await host.call("writer", {})).message, /fs\.writeFile needs the "fs_write" effect/);
    });
    await withCapHost(
      async (host) => {
        await load(host, "ungranted", ["net_read"], `return await fetch("${server.origin}/page").then((r) => r.status);`);
        assert.match(failure(await host.call("ungranted", {})).message, /grants agent:ungranted no net capability \(capabilities\.net\)/);
      },
      { capabilities: { fs: { root: workspace } } },
    );
  });

  it("ctx.fs: reads, lists and writes inside the root; .. and absolute paths are refused", async () => {
    await withCapHost(async (host) => {
      await load(host, "files", ["read", "fs_write"], `
        const text = await ctx.fs.readFile("notes/a.md", "utf8");
        const names = await ctx.fs.readdir("notes");
        await ctx.fs.mkdir("out", { recursive: true });
        await ctx.fs.writeFile("out/b.md", text + "!");
        const stat = await ctx.fs.stat("out/b.md");
        const refusals = [];
        for (const path of ["../outside", "/etc/passwd", "notes/\\u0000x"]) {
          try { await ctx.fs.readFile(path); refusals.push("read"); } catch (e) { refusals.push(e.code); }
        }
        return { text, names, size: stat.size, isFile: stat.isFile(), refusals };`);
      assert.deepEqual(structured(await host.call("files", {})), { text: "# alpha", names: ["a.md"], size: 8, isFile: true, refusals: ["refused", "refused", "refused"] });
      assert.equal(readFileSync(join(workspace, "out", "b.md"), "utf8"), "# alpha!");
    });
  });

  it("ctx.state: kept per source across calls and hosts, within its quota", async () => {
    await withCapHost(async (host) => {
      await load(host, "counter", ["state_write"], `
        const count = ((await ctx.state.get("count")) ?? 0) + 1;
        await ctx.state.set("count", count);
        let quota;
        try { await ctx.state.set("big", "x".repeat(10000)); } catch (e) { quota = e.code; }
        return { count, keys: await ctx.state.list(""), quota };`);
      assert.deepEqual(structured(await host.call("counter", {})), { count: 1, keys: ["count"], quota: "too_large" });
      assert.deepEqual(structured(await host.call("counter", {})), { count: 2, keys: ["count"], quota: "too_large" });
    });
    await withCapHost(async (host) => {
      await load(host, "counter", ["state_write"], `const count = ((await ctx.state.get("count")) ?? 0) + 1; await ctx.state.set("count", count); return { count };`);
      assert.deepEqual(structured(await host.call("counter", {})), { count: 3 });
    });
  });

  it("ctx.state: 10,000 keys meet the key quota, then the per-call cap; the host keeps working", async () => {
    await withCapHost(async (host) => {
      await load(host, "flood", ["state_write"], `
        const codes = {};
        for (let i = 0; i < 10000; i++) {
          try { await ctx.state.set("k" + i, i); codes.ok = (codes.ok ?? 0) + 1; } catch (e) { codes[e.code] = (codes[e.code] ?? 0) + 1; }
        }
        return { codes, keys: (await ctx.state.list("k").catch((e) => [e.code])).length };`);
      const result = structured(await host.call("flood", {}, { timeoutMs: 60_000 })) as { codes: Record<string, number> };
      assert.deepEqual(result, { codes: { ok: 20, too_large: 980, refused: 9000 }, keys: 1 });
      // The same source, a new call: its 20 keys are there, and it may ask again.
      const again = await host.load({ source: "agent:flood", code: tool("after_flood", ["state_write"], `return (await ctx.state.list("k")).length;`) });
      assert.ok(again.ok, JSON.stringify(again));
      assert.equal(structured(await host.call("after_flood", {})), 20);
    });
  });

  it("asks the gate with the effect and target, pausing the call's clock while it waits", async () => {
    const asked: GateCall[] = [];
    await withCapHost(
      async (host) => {
        await load(host, "gated", ["net_read"], `const r = await fetch(input.arg); return r.status;`);
        const ok = await host.call("gated", { arg: `${server.origin}/page` }, { timeoutMs: 2000 });
        assert.deepEqual(structured(ok), 200);
        const refused = await host.call("gated", { arg: `${server.origin}/page?deny=1` }, { timeoutMs: 2000 });
        // Let through uncaught, the gate's refusal ends the call blocked (no strike), not tool_error.
        assert.equal(outcomeOf(refused), "blocked", JSON.stringify(refused));
        assert.match(failure(refused).message, /was blocked by the gate: not today/);
      },
      {
        effects: { agent: { net_read: "ask" } },
        beforeToolCall: async (call) => {
          if (call.capability === undefined) return { action: "allow" };
          asked.push(call);
          // Longer than the call's limit and the watchdog's grace together: only a stopped clock lets the call finish.
          await new Promise((resolve) => setTimeout(resolve, 3000));
          return asked.length > 1 ? { action: "block", reason: "not today" } : { action: "allow" };
        },
      },
    );
    assert.deepEqual(asked.map((call) => call.capability), [
      { effect: "net_read", operation: "fetch GET", target: `${server.origin}/page` },
      { effect: "net_read", operation: "fetch GET", target: `${server.origin}/page` },
    ]);
  });

  it("a refusal by the gate let through uncaught is blocked; caught and replaced, it is the tool's own error", async () => {
    await withCapHost(
      async (host) => {
        await load(host, "state_through", ["state_write"], `await ctx.state.set("k", 1); return "set";`);
        await load(host, "state_caught", ["state_write"], `try { await ctx.state.set("k", 1); } catch (error) { throw new Error("could not save: " + error.message); } return "set";`);
        await load(host, "forged", ["state_write"], `const error = new TypeError("fetch failed: blocked"); error.code = "blocked"; throw error;`);
        const through = await host.call("state_through", {});
        assert.equal(outcomeOf(through), "blocked", JSON.stringify(through));
        assert.match(failure(through).message, /ctx\.state|state_write|k/);
        const caught = await host.call("state_caught", {});
        assert.equal(outcomeOf(caught), "tool_error", JSON.stringify(caught));
        assert.match(failure(caught).message, /could not save: .*blocked by the gate: no writes/);
        assert.equal(outcomeOf(await host.call("forged", {})), "tool_error");
        const report = await host.auditSource("agent:state_through");
        assert.equal(report?.totals.outcomes.blocked, 1, JSON.stringify(report?.totals));
        assert.equal(report?.totals.strikes, 0, "a blocked call is not a strike");
      },
      {
        effects: { agent: { state_write: "ask" } },
        beforeToolCall: async (call) => (call.capability === undefined ? { action: "allow" } : { action: "block", reason: "no writes" }),
      },
    );
  });

  it("records every use (source, tool, effect, target, bytes, outcome) in the ledger's file", async () => {
    const store = new SqliteCapabilityStore(join(dir.path, "ledger.db"));
    try {
      const { counters, latest } = await store.readUses("agent:get_page", 50);
      assert.ok(counters.some((counter) => counter.effect === "net_read" && counter.outcome === "ok" && counter.bytes === 17), JSON.stringify(counters));
      assert.ok(counters.some((counter) => counter.outcome === "refused"), JSON.stringify(counters));
      assert.ok(latest.every((use) => use.tool === "get_page" && !use.target.includes("?")));
      const writer = await store.readUses("agent:writer", 5);
      assert.equal(writer.latest[0]?.outcome, "undeclared");
      assert.equal(writer.latest[0]?.target, "x.txt");
    } finally {
      await store.close();
    }
    const audit = await runCli(["audit", "agent:get_page", "--ledger", join(dir.path, "ledger.db")], { cwd: dir.path });
    assert.equal(audit.code, 0, audit.stderr);
    assert.match(audit.stdout, /capabilities \(uses by tool, effect and outcome\):\n {2}get_page net_read ok: 1 uses, 17 bytes, last http:\/\/127\.0\.0\.1:\d+\/page\n/);
    assert.match(audit.stdout, /fetch GET http:\/\/127\.0\.0\.2:9\/ → refused \(0 bytes\): http:\/\/127\.0\.0\.2:9 is not on this source's net allow-list/);
  });
});
