import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost, type Host, type HostEvent, type ToolResult } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource, withHost } from "../helpers/host.js";
import { runCli } from "../cli/cli-process.js";

/**
 * Code Mode's fast lane, on a real host with one worker and a SQLite
 * ledger: a script's calls of pre-authorized tools run in its worker without
 * a request to the host each (`details.fastCalls` counts the lane's
 * records; a call through the host is a capability request the host
 * answers and is not counted there), their records reach the ledger, a strike
 * takes the source off the lane for the rest of the script, and a
 * quarantine made by another process is obeyed by the next script.
 */
type Details = { calls: { tool: string; kind: string }[]; callCount: number; callsByKind: Record<string, number>; fastCalls: number; callsNotListed?: number };

const ADD_SOURCE = toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number() })", run: "return { sum: input.a + input.b };" });

/** Names in `dir`; none if it is gone (other test processes' pools remove theirs at any moment). */
function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The lane journals this process's hosts have open now that hold a "lane" line. */
function laneJournals(): string[] {
  const homes = ["/dev/shm", tmpdir()].flatMap((base) => namesIn(base).filter((name) => name.startsWith("corral-lanes-")).map((name) => join(base, name)));
  const ours = homes.flatMap((home) => namesIn(home).filter((name) => name.startsWith(`${process.pid}-`)).map((name) => join(home, name)));
  return ours.filter((path) => {
    try {
      return readFileSync(path, "utf8").includes('"type":"lane"');
    } catch {
      return false;
    }
  });
}

function detailsOf(result: ToolResult): Details {
  assert.ok(result.details !== undefined, JSON.stringify(result));
  return result.details as Details;
}

describe("Code Mode: the fast lane", { timeout: 300_000 }, () => {
  let host: Host;
  let before_: number[];
  let dir: { path: string; remove: () => void };
  let ledgerFile: string;
  const events: HostEvent[] = [];

  before(async () => {
    before_ = childPids();
    dir = tempDir();
    ledgerFile = join(dir.path, "ledger.db");
    host = createHost({
      workers: 1,
      cacheDir: join(dir.path, "cache"),
      // Two strikes quarantine a source until released: one strike does not.
      ledger: { store: ledgerFile, policy: { strikes: 2, windowMs: 600_000, quarantineMs: null } },
      codeMode: { timeoutMs: 60_000, maxCalls: 2_000 },
    });
    host.on((event) => events.push(event));
    const loads = await Promise.all([
      host.load({ source: "agent:math", code: ADD_SOURCE }),
      // Hangs when asked: its isolate's limit stops it (a timeout, a strike).
      host.load({
        source: "agent:flaky",
        code: toolSource({ name: "flaky", input: "z.object({ hang: z.boolean() })", extra: "limits: { timeoutMs: 100 },", run: "if (input.hang) for (;;) {} return 'fine';" }),
      }),
      // Declares an effect: judged by the host on every call (the policy asks the gate), never on the lane.
      host.load({ source: "agent:reader", code: toolSource({ name: "reader", extra: 'effects: ["read"], limits: {},', run: "return 'read';" }).replace("effects: [],", "") }),
      host.load({ source: "agent:other", code: toolSource({ name: "other", run: "return 'other';" }) }),
    ]);
    for (const loaded of loads) assert.ok(loaded.ok, JSON.stringify(loaded));
  });

  after(async () => {
    await host.close();
    dir.remove();
    await assertNoWorkersLeft(before_);
  });

  it("runs a script's calls of pre-authorized tools in its worker: no request to the host per call", async () => {
    const result = await host.call("run_code", { code: "let s = 0; for (let i = 0; i < 50; i++) s += (await tools.add({ a: i, b: 1 })).sum; return s;" });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.structured, 1275);
    const details = detailsOf(result);
    assert.equal(details.callCount, 50);
    assert.equal(details.fastCalls, 50, "every call took the fast lane");
    // A tool with an effect goes through the host (the policy asks the gate for it).
    const mixed = await host.call("run_code", { code: "await tools.add({ a: 1, b: 2 }); try { await tools.reader({}); } catch (e) { return e.kind; } return 'ran';" });
    assert.ok(mixed.ok, JSON.stringify(mixed));
    assert.equal(detailsOf(mixed).fastCalls, 1);
    assert.deepEqual(detailsOf(mixed).calls.map((c) => [c.tool, c.kind]), [["add", "ok"], ["reader", "blocked"]]);
  });

  it("records every one of 1,000 fast calls: the ledger's counts equal details.calls", async () => {
    const before = (await host.auditSource("agent:math"))?.tools.find((t) => t.tool === "add")?.totals.calls ?? 0;
    const ends = events.length;
    const result = await host.call("run_code", { code: "for (let i = 0; i < 1000; i++) await tools.add({ a: i, b: i }); return 'done';" });
    assert.ok(result.ok, JSON.stringify(result));
    const details = detailsOf(result);
    assert.equal(details.callCount, 1_000);
    assert.equal(details.fastCalls, 1_000);
    assert.deepEqual(details.callsByKind, { ok: 1_000 });
    assert.equal(details.calls.length, 1_000);
    const row = (await host.auditSource("agent:math"))?.tools.find((t) => t.tool === "add");
    assert.equal((row?.totals.calls ?? 0) - before, 1_000, "one ledger record per nested call");
    // Each nested call's events were emitted by the host as its record arrived, before the script's result.
    const nestedEnds = events.slice(ends).filter((e) => e.type === "tool_execution_end" && e.tool === "add");
    assert.equal(nestedEnds.length, 1_000);
  });

  it("takes a source off the lane after its strike, for the rest of the script: its next call is judged by the host (quarantined at the policy's second strike)", async () => {
    const code = `
      const kinds = [];
      const call = async (hang) => { try { await tools.flaky({ hang }); kinds.push("ok"); } catch (e) { kinds.push(e.kind); } };
      await call(false); await call(true); await call(false); await call(true); await call(false);
      await tools.add({ a: 1, b: 1 });
      return kinds;`;
    const result = await host.call("run_code", { code });
    assert.ok(result.ok, JSON.stringify(result));
    // ok, strike (fast); then through the host: ok, strike (the policy's second: quarantined), quarantined.
    assert.deepEqual(result.structured, ["ok", "timeout", "ok", "timeout", "quarantined"]);
    const details = detailsOf(result);
    assert.equal(details.fastCalls, 3, "flaky twice before its strike, add once: the rest went through the host");
    const row = (await host.auditSource("agent:flaky"))?.tools.find((t) => t.tool === "flaky");
    assert.equal(row?.totals.strikes, 2);
    assert.equal(row?.totals.calls, 5);
    assert.equal((await host.sourceState("agent:flaky")).state, "quarantined");
    // The next script does not get the quarantined tool at all.
    const next = await host.call("run_code", { code: "return { flaky: typeof tools.flaky };" });
    assert.ok(next.ok);
    assert.deepEqual(next.structured, { flaky: "undefined" });
    await host.release("agent:flaky");
  });

  it("charges a worker killed during a lane call of a warm, quick tool to that tool, not the script: the host heard it start, and has every record before it", () =>
    withHost(
      async (fresh) => {
        const seen: HostEvent[] = [];
        fresh.on((event) => seen.push(event));
        // crash-keys-of-typed-array (test/hostile/cases): 20 million index strings made in one native call,
        // which the isolate's own limits do not stop; the script's own limit (60 s) is far away.
        const loads = await Promise.all([
          fresh.load({ source: "agent:math", code: ADD_SOURCE }),
          fresh.load({
            source: "agent:keys",
            code: toolSource({ name: "keys", input: "z.object({ n: z.number() })", extra: "limits: { timeoutMs: 1000, memoryMb: 32 },", run: "return Object.keys(new Uint8Array(input.n)).length;" }),
          }),
        ]);
        for (const loaded of loads) assert.ok(loaded.ok, JSON.stringify(loaded));
        // Quick keys calls first, so the last one most likely runs inside the script's own entry (the
        // lane's synchronous path); a slow one before it would send it through the nested queue instead.
        const result = await fresh.call("run_code", { code: "await tools.add({ a: 1, b: 1 }); for (let i = 0; i < 5; i++) await tools.keys({ n: 10 }); return await tools.keys({ n: 20_000_000 });" });
        assert.ok(!result.ok);
        assert.equal(result.error.kind, "tool_error");
        assert.match(result.error.message, /the tool "keys" this script called stopped its worker .*The strike is the tool's/);
        const row = (await fresh.auditSource("agent:keys"))?.tools.find((t) => t.tool === "keys");
        // Each quick call's record left the worker before its answer did: none is lost with it (5 + the stopped call's).
        assert.equal(row?.totals.calls, 6, JSON.stringify(row?.totals));
        assert.equal(row?.totals.strikes, 1, "the host's second layer charged the fast call's tool");
        assert.equal((row?.totals.outcomes.memory ?? 0) + (row?.totals.outcomes.timeout ?? 0), 1, JSON.stringify(row?.totals.outcomes));
        assert.equal((await fresh.auditSource("code:program"))?.totals.strikes ?? 0, 0, "no strike for the script");
        // Its record is the lane's: the death charged to the lane call the worker said it started (the 7th of the script).
        const ended = seen.filter((e) => e.type === "tool_execution_end" && e.tool === "keys").at(-1);
        assert.ok(ended !== undefined && ended.type === "tool_execution_end" && ended.callId.endsWith("/6"), JSON.stringify(ended));
        assert.ok(!ended.result.ok && ["timeout", "memory"].includes(ended.result.error.kind), JSON.stringify(ended.result));
        const after = await fresh.call("add", { a: 2, b: 2 });
        assert.ok(after.ok, "the host serves on with a new worker");
      },
      { codeMode: { timeoutMs: 60_000 } },
    ));

  it("a script whose worker dies right after 500 lane calls: the ledger has all 500 records", () =>
    withHost(
      async (fresh) => {
        const loaded = await fresh.load({ source: "agent:math", code: ADD_SOURCE });
        assert.ok(loaded.ok, JSON.stringify(loaded));
        // The script then loops in native code its isolate's limits do not stop (crash-keys-of-typed-array):
        // the host's watchdog (or its memory watch) kills the worker, with nothing of the script's left to send.
        const code = "for (let i = 0; i < 500; i++) await tools.add({ a: i, b: 1 }); for (;;) Object.keys(new Uint8Array(20_000_000));";
        const result = await fresh.call("run_code", { code });
        assert.ok(!result.ok, JSON.stringify(result));
        assert.ok(["timeout", "memory"].includes(result.error.kind), JSON.stringify(result.error));
        const row = (await fresh.auditSource("agent:math"))?.tools.find((t) => t.tool === "add");
        assert.equal(row?.totals.calls, 500, JSON.stringify(row?.totals));
        assert.equal(row?.totals.outcomes.ok, 500);
      },
      { codeMode: { timeoutMs: 1_000, maxCalls: 1_000 } },
    ));

  it("a script whose worker dies while the host is not reading: every record the worker wrote to the lane's journal reaches the ledger", () =>
    withHost(
      async (fresh) => {
        const loaded = await fresh.load({ source: "agent:math", code: ADD_SOURCE });
        assert.ok(loaded.ok, JSON.stringify(loaded));
        const warm = await fresh.call("run_code", { code: "return (await tools.add({ a: 1, b: 1 })).sum;" });
        assert.ok(warm.ok, JSON.stringify(warm));
        const code = "for (let i = 0; i < 2000; i++) await tools.add({ a: i, b: 1 }); for (;;) Object.keys(new Uint8Array(20_000_000));";
        const running = fresh.call("run_code", { code });
        // This process reads nothing for a while: the journal grows, and is read once the worker is gone.
        await new Promise((resolve) => setTimeout(resolve, 30));
        const until = Date.now() + 400;
        while (Date.now() < until);
        const result = await running;
        assert.ok(!result.ok, JSON.stringify(result));
        const row = (await fresh.auditSource("agent:math"))?.tools.find((t) => t.tool === "add");
        assert.equal(row?.totals.calls, 2001, JSON.stringify(row?.totals));
      },
      { codeMode: { timeoutMs: 3_000, maxCalls: 3_000 } },
    ));

  it("a lane journal with a line that is not the lane's: the worker is stopped as broken, the host serves on, the journal's files go", () =>
    withHost(
      async (fresh) => {
        const loads = await Promise.all([
          fresh.load({ source: "agent:math", code: ADD_SOURCE }),
          fresh.load({ source: "agent:nap", code: toolSource({ name: "nap", run: 'await new Promise((resolve) => setTimeout(resolve, 1_500)); return "rested";' }) }),
        ]);
        for (const loaded of loads) assert.ok(loaded.ok, JSON.stringify(loaded));
        const running = fresh.call("run_code", { code: "await tools.add({ a: 1, b: 1 }); return await tools.nap({});" });
        // The script's journal (this host's, in /dev/shm or the temporary directory) once its first lines are there.
        let journal: string | undefined;
        for (let i = 0; i < 200 && journal === undefined; i++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          journal = laneJournals()[0];
        }
        assert.ok(journal !== undefined, "the script's lane journal was made and written");
        appendFileSync(journal, "not the lane's\n");
        const result = await running;
        assert.ok(!result.ok, JSON.stringify(result));
        assert.match(result.error.message, /fast lane journal is broken: the lane journal has a line that is not JSON/);
        assert.equal(existsSync(journal), false, "its file is removed with the script");
        const after = await fresh.call("add", { a: 2, b: 2 });
        assert.ok(after.ok, "the host serves on with a new worker");
      },
      { codeMode: { timeoutMs: 10_000 } },
    ));

  it("obeys from the next script a quarantine that another process (the CLI) made meanwhile", async () => {
    const first = await host.call("run_code", { code: "return (await tools.other({})) + ' ' + (await tools.add({ a: 1, b: 1 })).sum;" });
    assert.ok(first.ok, JSON.stringify(first));
    assert.equal(detailsOf(first).fastCalls, 2);
    const run = await runCli(["quarantine", "agent:other", "--reason", "bad answers", "--ledger", ledgerFile], { cwd: dir.path });
    assert.equal(run.code, 0, run.stderr);
    const second = await host.call("run_code", { code: "const t = tools.other; await tools.add({ a: 1, b: 1 }); return { other: typeof t };" });
    assert.ok(second.ok, JSON.stringify(second));
    assert.deepEqual(second.structured, { other: "undefined" }, "the quarantined tool is not the script's");
    assert.equal(detailsOf(second).fastCalls, 1);
    const row = (await host.auditSource("agent:other"))?.tools.find((t) => t.tool === "other");
    assert.equal(row?.totals.calls, 1, "it never ran again");
    await host.release("agent:other");
  });

  it("works on a host without a cache folder: the lane's bundles go inline, once per worker", () =>
    withHost(
      async (inline) => {
        const loaded = await inline.load({ source: "agent:math", code: ADD_SOURCE });
        assert.ok(loaded.ok, JSON.stringify(loaded));
        for (let i = 0; i < 2; i++) {
          const result = await inline.call("run_code", { code: "return (await tools.add({ a: 2, b: 3 })).sum + (await tools.add({ a: 1, b: 1 })).sum;" });
          assert.ok(result.ok, JSON.stringify(result));
          assert.equal(result.structured, 7);
          assert.equal(detailsOf(result).fastCalls, 2);
        }
      },
      { cacheDir: false, codeMode: {} },
    ));
});
