/**
 * @module test/capabilities/payload-caps.test
 * Every documented payload cap is reachable by an honest tool at the default
 * limits (64 MB isolates, the caps of docs/api.md), and one byte past it is
 * `too_large`, never a memory kill: a fetch's response (declared length and
 * streamed), its request body, a file read and written, a state value. The
 * caps come from CAPABILITY_DEFAULTS, so the rule follows the documented
 * figures. A payload the isolate has no room for beside what the tool holds
 * is `too_large` as well, copied nowhere. No case leaves a strike in the
 * ledger. Real host, workers and isolates; a real server on 127.0.0.1.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHost, type ToolResult } from "../../src/index.js";
import { CAPABILITY_DEFAULTS } from "../../src/capabilities/options.js";
import { startServer, type TestServer } from "../../src/capabilities/testing-server.js";
import { childPids, assertNoWorkersLeft, tempDir, toolSource } from "../helpers/host.js";

const MiB = 1024 * 1024;
const { maxResponseBytes, maxRequestBytes, maxFileBytes, quotaBytes } = CAPABILITY_DEFAULTS;

let server: TestServer;
let dir: { path: string; remove: () => void };
let workspace: string;

before(async () => {
  const sized = (req: { url?: string | undefined }) => Number(new URL(req.url ?? "/", "http://x").searchParams.get("n"));
  server = await startServer({
    // With Content-Length (a length past the cap is refused before reading) and streamed (refused as it arrives).
    "/declared": (req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(Buffer.alloc(sized(req), 0x61)),
    "/streamed": (req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(Buffer.alloc(sized(req), 0x62));
    },
    "/echo-length": (_req, res, body) => res.writeHead(200).end(String(body.length)),
  });
  dir = tempDir("corral-payload-");
  workspace = join(dir.path, "ws");
  mkdirSync(workspace, { recursive: true });
  for (const n of [maxFileBytes, maxFileBytes + 1]) writeFileSync(join(workspace, `f${n}`), Buffer.alloc(n, 0x63));
});
after(async () => {
  await server.close();
  dir.remove();
});

/** A tool that does `body` with a payload of `n` bytes and answers the length it saw, or the refusal's code. */
const tool = (name: string, effects: string[], body: string) =>
  toolSource({
    name,
    effects,
    input: "z.object({ n: z.number(), url: z.string(), hold: z.number().optional(), uncaught: z.boolean().optional() })",
    run: `const { n, url, hold, uncaught } = input;
    const held = hold === undefined ? undefined : new Uint8Array(hold).fill(1);
    try {
      const length = await (async () => { ${body} })();
      return { ok: true, length, held: held?.length };
    } catch (error) {
      if (uncaught) throw error;
      return { ok: false, code: error.code, message: String(error.message) };
    }`,
  });

/** One tool per payload path: what it does with a payload of n bytes, answering the length it saw. */
const TOOLS: Record<string, { effects: string[]; body: string }> = {
  response_declared: { effects: ["net_read"], body: "return (await (await fetch(url + '/declared?n=' + n)).text()).length;" },
  response_streamed: { effects: ["net_read"], body: "return (await (await fetch(url + '/streamed?n=' + n)).arrayBuffer()).byteLength;" },
  request_body: { effects: ["net_write"], body: "return Number(await (await fetch(url + '/echo-length', { method: 'POST', body: 'x'.repeat(n) })).text());" },
  file_read: { effects: ["read"], body: "return (await ctx.fs.readFile('f' + n, 'utf8')).length;" },
  file_write: { effects: ["fs_write"], body: "await ctx.fs.writeFile('w', 'x'.repeat(n)); return n;" },
  // Key "k" (1 byte) and a JSON string of n bytes: the quota counts both.
  state_value: { effects: ["state_write"], body: "await ctx.state.set('k', 'x'.repeat(n - 2)); return (await ctx.state.get('k')).length + 2;" },
};

/** Each cap, the tool that meets it, and the payload size that fills it exactly. */
const CAPS = [
  { cap: "net.maxResponseBytes", tool: "response_declared", exact: maxResponseBytes },
  { cap: "net.maxResponseBytes", tool: "response_streamed", exact: maxResponseBytes },
  { cap: "net.maxRequestBytes", tool: "request_body", exact: maxRequestBytes },
  { cap: "fs.maxFileBytes", tool: "file_read", exact: maxFileBytes },
  { cap: "fs.maxFileBytes", tool: "file_write", exact: maxFileBytes },
  { cap: "state.quotaBytes", tool: "state_value", exact: quotaBytes - 1 },
];

describe("capability payloads at the default limits", { timeout: 240_000 }, () => {
  const pidsBefore = childPids();
  let host: ReturnType<typeof createHost>;
  const call = (name: string, input: Record<string, unknown>) => host.call(name, { url: server.origin, ...input });

  before(async () => {
    // Default memory and time limits, default caps; one source granted smaller files.
    host = createHost({
      workers: 1,
      cacheDir: join(dir.path, "cache"),
      ledger: { store: false },
      effects: { agent: { net_read: "allow", net_write: "allow", read: "allow", fs_write: "allow", state_write: "allow" } },
      capabilities: {
        net: { allow: [server.origin] },
        fs: { root: workspace },
        state: {},
        sources: { "agent:small-files": { fs: { root: workspace, maxFileBytes: MiB } } },
      },
    });
    for (const [name, spec] of Object.entries(TOOLS)) {
      const loaded = await host.load({ source: `agent:${name}`, code: tool(name, spec.effects, spec.body) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
    }
    const small = await host.load({ source: "agent:small-files", code: tool("small_write", ["fs_write"], TOOLS.file_write?.body ?? "") });
    assert.ok(small.ok, JSON.stringify(small));
  });
  after(async () => {
    await host.close();
    await assertNoWorkersLeft(pidsBefore);
  });

  const answer = (result: ToolResult) => {
    assert.ok(result.ok, JSON.stringify(result));
    return result.structured as { ok: boolean; length?: number; code?: string; message?: string; held?: number };
  };

  for (const { cap, tool: name, exact } of CAPS) {
    it(`${name}: a payload of exactly ${cap} (${exact} bytes) is read whole; one byte more is too_large`, async () => {
      assert.deepEqual(answer(await call(name, { n: exact })), { ok: true, length: exact });
      const over = answer(await call(name, { n: exact + 1 }));
      assert.equal(over.ok, false, JSON.stringify(over));
      assert.equal(over.code, "too_large", over.message);
    });
  }

  it("the issue's cases: a 2 MiB POST against a 1 MiB maxRequestBytes, a 5 MiB file against a 1 MiB maxFileBytes", async () => {
    assert.equal(answer(await call("request_body", { n: 2 * MiB })).code, "too_large");
    const write = answer(await call("small_write", { n: 5 * MiB }));
    assert.equal(write.code, "too_large");
    assert.match(write.message ?? "", /writing 5242880 bytes to "w" is more than the 1048576 allowed/);
  });

  it("a too_large let through uncaught is the tool's error, not a strike", async () => {
    const result = await call("file_write", { n: maxFileBytes + 1, uncaught: true });
    assert.equal(result.ok, false);
    assert.equal(result.ok ? "" : result.error.kind, "tool_error");
  });

  it("a payload that would not fit beside what the tool holds is too_large, copied nowhere; the isolate goes on", async () => {
    const held = 60 * MiB;
    const refused = answer(await call("file_read", { n: maxFileBytes, hold: held }));
    assert.equal(refused.code, "too_large", JSON.stringify(refused));
    assert.match(refused.message ?? "", /do not fit in this tool's memory \(its limit is 64 MB, \d+ MB of it in use\)/);
    assert.deepEqual(answer(await call("file_read", { n: maxFileBytes })), { ok: true, length: maxFileBytes });
  });

  it("a state value's text that would take the heap past its limit is too_large, weighed before it is copied", async () => {
    // The value set by a lean call, then read by one holding most of the isolate's memory.
    assert.deepEqual(answer(await call("state_value", { n: quotaBytes - 1 })), { ok: true, length: quotaBytes - 1 });
    const refused = answer(await call("state_value", { n: quotaBytes - 1, hold: 58 * MiB }));
    assert.equal(refused.code, "too_large", JSON.stringify(refused));
    assert.match(refused.message ?? "", /do not fit in this tool's memory/);
  });

  it("no case left a strike: every source's record has calls and no memory, timeout or crash", async () => {
    for (const source of [...Object.keys(TOOLS).map((name) => `agent:${name}`), "agent:small-files"]) {
      const report = await host.auditSource(source);
      assert.ok(report !== null && report.totals.calls > 0, source);
      assert.equal(report.totals.strikes, 0, `${source}: ${JSON.stringify(report.lastStrike)}`);
      assert.equal((await host.sourceState(source)).state, "active", source);
    }
  });
});
