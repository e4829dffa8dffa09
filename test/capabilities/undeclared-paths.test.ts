/**
 * @module test/capabilities/undeclared-paths.test
 * `fetch` is in every isolate, and a capability the tool's effects do not
 * declare is refused `undeclared`, naming the effect, on every path a call
 * can take: called directly, through a user gate, from a Code Mode script on
 * its fast lane (the tool runs in the script's worker) and host-routed (a
 * gate keeps every script call off the lane). The same pure tool tries
 * fetch (GET and POST), ctx.fs (read and write) and ctx.state (get and set)
 * and reports each refusal's code and message; every path must answer the
 * same. A script's own fetch is refused `undeclared` too (a script
 * declares no effects). Real host, workers and isolates; a real server on
 * 127.0.0.1.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost, type Host, type HostOptions, type ToolResult } from "../../src/index.js";
import { startServer, type TestServer } from "../../src/capabilities/testing-server.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";

let server: TestServer;
let dir: { path: string; remove: () => void };
before(async () => {
  server = await startServer({ "/page": (_req, res) => res.writeHead(200).end("page") });
  dir = tempDir("corral-undeclared-");
});
after(async () => {
  await server.close();
  dir.remove();
});

/** Each use and the effect its refusal must name. */
const USES: Record<string, { code: string; effect: RegExp }> = {
  typeofFetch: { code: "typeof fetch", effect: /^function$/ },
  fetchGet: { code: "await fetch(url)", effect: /fetch GET needs the "net_read" effect, which "pure" did not declare/ },
  fetchPost: { code: "await fetch(url, { method: 'POST', body: 'x' })", effect: /fetch POST needs the "net_write" effect, which "pure" did not declare/ },
  fsRead: { code: "await ctx.fs.readFile('a.txt', 'utf8')", effect: /fs\.readFile needs the "read" effect, which "pure" did not declare/ },
  fsWrite: { code: "await ctx.fs.writeFile('a.txt', 'x')", effect: /fs\.writeFile needs the "fs_write" effect, which "pure" did not declare/ },
  stateGet: { code: "await ctx.state.get('k')", effect: /state\.get needs the "read" or "state_write" effect, which "pure" did not declare/ },
  stateSet: { code: "await ctx.state.set('k', 1)", effect: /state\.set needs the "state_write" effect, which "pure" did not declare/ },
};

const PURE = toolSource({
  name: "pure",
  input: "z.object({ url: z.string() })",
  run: `const url = input.url; const seen = {};
    ${Object.entries(USES)
      .map(([name, use]) => (name === "typeofFetch" ? `seen.${name} = ${use.code};` : `try { await (async () => ${use.code})(); seen.${name} = "allowed"; } catch (e) { seen.${name} = e.code + ": " + e.message; }`))
      .join("\n    ")}
    return seen;`,
});

async function withPureHost(extra: HostOptions, fn: (host: Host) => Promise<void>): Promise<void> {
  const before_ = childPids();
  const host = createHost({
    workers: 1,
    cacheDir: join(dir.path, "cache"),
    ledger: { store: false },
    codeMode: {},
    effects: { agent: { net_read: "allow", net_write: "allow", read: "allow", fs_write: "allow", state_write: "allow" } },
    capabilities: { net: { allow: [server.origin] }, fs: { root: dir.path }, state: {} },
    ...extra,
  });
  try {
    const loaded = await host.load({ source: "agent:pure", code: PURE });
    assert.ok(loaded.ok, JSON.stringify(loaded));
    await fn(host);
  } finally {
    await host.close();
    await assertNoWorkersLeft(before_);
  }
}

/** The tool's report, from a direct call or a script's (which returns the tool's answer). */
function assertAllUndeclared(result: ToolResult, path: string): void {
  assert.ok(result.ok, `${path}: ${JSON.stringify(result)}`);
  const seen = result.structured as Record<string, string>;
  for (const [name, use] of Object.entries(USES)) {
    if (name === "typeofFetch") assert.match(seen[name] ?? "", use.effect, `${path}: typeof fetch`);
    else {
      assert.match(seen[name] ?? "", /^undeclared: /, `${path}: ${name}: ${seen[name]}`);
      assert.match(seen[name] ?? "", use.effect, `${path}: ${name}`);
    }
  }
}

const SCRIPT = `return await tools.pure({ url: ${JSON.stringify("URL")} });`;
const script = () => SCRIPT.replace("URL", `${server.origin}/page`);

describe("an undeclared capability answers undeclared on every path", { timeout: 180_000 }, () => {
  it("directly, and from a Code Mode script on its fast lane", async () => {
    await withPureHost({}, async (host) => {
      assertAllUndeclared(await host.call("pure", { url: `${server.origin}/page` }), "direct");
      // Twice: the first lane call may run cold in the nested queue, the second warm inside the script's entry.
      for (const round of [1, 2]) {
        const result = await host.call("run_code", { code: script() });
        assertAllUndeclared(result, `fast lane ${round}`);
        assert.ok(((result.details as { fastCalls?: number }).fastCalls ?? 0) >= 1, `fast lane ${round}: the call ran on the lane: ${JSON.stringify(result.details)}`);
      }
      // The script's own isolate has fetch too, and declares no effects.
      const own = await host.call("run_code", { code: `try { await fetch(${JSON.stringify(`${server.origin}/page`)}); return "allowed"; } catch (e) { return e.code + ": " + e.message; }` });
      assert.ok(own.ok, JSON.stringify(own));
      assert.match(String(own.structured ?? own.output), /^undeclared: fetch failed: fetch GET needs the "net_read" effect, which a Code Mode script \(it declares no effects: call a tool that does\) did not declare/);
      assert.equal(server.hits.length, 0, "nothing reached the server");
    });
  });

  it("through a user gate, and host-routed from a script (a gate keeps every call off the lane)", async () => {
    const gated: string[] = [];
    const beforeToolCall = (call: { tool: string }) => {
      gated.push(call.tool);
      return { action: "allow" as const };
    };
    await withPureHost({ beforeToolCall }, async (host) => {
      assertAllUndeclared(await host.call("pure", { url: `${server.origin}/page` }), "gated");
      const result = await host.call("run_code", { code: script() });
      assertAllUndeclared(result, "host-routed");
      assert.equal((result.details as { fastCalls?: number }).fastCalls ?? 0, 0, "host-routed: no lane call");
      assert.ok(gated.filter((tool) => tool === "pure").length >= 2, `the gate saw both calls: ${gated.join(", ")}`);
    });
  });
});
