/**
 * @module test/capabilities/refusal-paths.test
 * One refusal, one answer, whatever path the call took (issue 27, item 4):
 * each capability refusal code of docs/api.md (`undeclared`, `not_granted`,
 * `blocked`, `refused`, `too_large`) × each path a call can take to the
 * broker: called directly, called through the gate (policy `ask`), called
 * from a Code Mode script on its fast lane, and from a script through the
 * host. The tool catches the refusal and answers its code and message; every
 * path must answer the same pair. Real hosts, workers and isolates.
 *
 * Which cells exist: only a pure tool (`effects: []`) runs on the fast lane,
 * so the only refusal a fast-lane call can meet is `undeclared` (ctx.fs and
 * ctx.state alike); `blocked` for a single use comes from the gate's answer
 * on a capability (`call.capability`), so only on the gated paths (a `deny`
 * policy blocks the whole call before it runs, never one use).
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost, type GateCall, type Host, type HostOptions, type ToolResult } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";

const dir = tempDir("corral-refusals-");
after(() => dir.remove());

type Refusal = { code: string; message: string };

/** Declares read and state_write, never fs_write; no host here grants fs. Each op meets one refusal. */
const PROBE = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "probe", description: "meets a refusal", input: z.object({ op: z.string() }), effects: ["read", "state_write"],
  async run({ op }, ctx) {
    try {
      if (op === "undeclared") await ctx.fs.writeFile("a.txt", "x");
      else if (op === "not_granted") await ctx.fs.stat(".");
      else if (op === "refused") await ctx.state.set("k".repeat(600), 1);
      else if (op === "too_large") await ctx.state.set("big", "x".repeat(500));
      else if (op === "blocked") await ctx.state.set("blockme", 1);
      return { code: "none", message: "" };
    } catch (error) { return { code: error.code, message: error.message }; }
  },
});`;

/** Pure: every capability is undeclared for it, ctx.fs and ctx.state alike. */
const PURE = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "pure", description: "pure, reaches anyway", input: z.object({ op: z.string() }), effects: [],
  async run({ op }, ctx) {
    try {
      if (op === "fs") await ctx.fs.readFile("a.txt");
      else await ctx.state.get("k");
      return { code: "none", message: "" };
    } catch (error) { return { code: error.code, message: error.message }; }
  },
});`;

const BASE: HostOptions = { workers: 1, codeMode: {}, capabilities: { state: { quotaBytes: 100, maxKeys: 5 } } };

/** Paths without a user gate: the policy allows every effect, so pure tools take a script's fast lane. */
const OPEN: HostOptions = { ...BASE, effects: { agent: { read: "allow", state_write: "allow", fs_write: "allow" } } };

/** Paths through the gate: every effect asks; the call is allowed, one use (the key "blockme") is not. */
const GATED: HostOptions = {
  ...BASE,
  effects: { agent: { read: "ask", state_write: "ask", fs_write: "ask" } },
  beforeToolCall: async (call: GateCall) => (call.capability?.target === "blockme" ? { action: "block", reason: "not that key" } : { action: "allow" }),
};

async function withPathHost(name: string, options: HostOptions, fn: (host: Host) => Promise<void>): Promise<void> {
  const before = childPids();
  const host = createHost({ cacheDir: join(dir.path, `cache-${name}`), ledger: { store: join(dir.path, `${name}.db`) }, ...options });
  try {
    for (const [source, code] of [["agent:probe", PROBE], ["agent:pure", PURE]] as const) {
      const loaded = await host.load({ source, code });
      assert.ok(loaded.ok, JSON.stringify(loaded));
    }
    await fn(host);
  } finally {
    await host.close();
    await assertNoWorkersLeft(before);
  }
}

function refusalOf(result: ToolResult): Refusal {
  assert.ok(result.ok, JSON.stringify(result).slice(0, 400));
  return (result.ok ? result.structured : undefined) as Refusal;
}

const direct = (host: Host, tool: string, op: string) => host.call(tool, { op }).then(refusalOf);

/** The same call from a script; `lane`: it must have run on the fast lane (true) or through the host (false). */
async function fromScript(host: Host, tool: string, op: string, lane: boolean): Promise<Refusal> {
  const result = await host.call("run_code", { code: `return await tools.${tool}({ op: ${JSON.stringify(op)} });` });
  const fastCalls = (result.details as { fastCalls?: number } | undefined)?.fastCalls ?? 0;
  assert.equal(fastCalls > 0, lane, `fastCalls ${fastCalls}: ${JSON.stringify(result).slice(0, 400)}`);
  return refusalOf(result);
}

/** [tool, op, the code docs/api.md gives it, whether the fast lane can meet it]. */
const CELLS: [string, string, string, boolean][] = [
  ["pure", "state", "undeclared", true],
  ["pure", "fs", "undeclared", true],
  ["probe", "undeclared", "undeclared", false],
  ["probe", "not_granted", "not_granted", false],
  ["probe", "refused", "refused", false],
  ["probe", "too_large", "too_large", false],
];

describe("a capability refusal answers the same on every path", { timeout: 150_000 }, () => {
  const answers = new Map<string, Map<string, Refusal>>();
  const note = (cell: string, path: string, refusal: Refusal) => {
    if (!answers.has(cell)) answers.set(cell, new Map());
    answers.get(cell)?.set(path, refusal);
  };

  it("direct, the fast lane, and a script through the host", async () => {
    await withPathHost("open", OPEN, async (host) => {
      // Warm the pure tool in this worker so a script's call of it is quick on the lane.
      await direct(host, "pure", "state");
      for (const [tool, op, , lane] of CELLS) {
        const cell = `${tool}:${op}`;
        note(cell, "direct", await direct(host, tool, op));
        // A pure tool is on the lane; every probe call is host-routed (it declares effects).
        note(cell, lane ? "fast lane" : "host-routed", await fromScript(host, tool, op, lane));
      }
    });
  });

  it("through the gate: direct, and a script's call (host-routed: with a user gate nothing takes the lane)", async () => {
    await withPathHost("gated", GATED, async (host) => {
      for (const [tool, op] of [...CELLS.map(([t, o]) => [t, o] as const), ["probe", "blocked"] as const]) {
        const cell = `${tool}:${op}`;
        note(cell, "gated", await direct(host, tool, op));
        note(cell, "gated, from a script", await fromScript(host, tool, op, false));
      }
    });
  });

  it("every cell: the documented code, and one message whatever the path", () => {
    const expected: [string, string][] = [...CELLS.map(([tool, op, code]) => [`${tool}:${op}`, code] as [string, string]), ["probe:blocked", "blocked"]];
    for (const [cell, code] of expected) {
      const byPath = answers.get(cell);
      assert.ok(byPath !== undefined && byPath.size >= 2, `${cell}: ${byPath?.size ?? 0} paths ran`);
      const [first] = [...byPath.values()];
      for (const [path, refusal] of byPath) {
        assert.equal(refusal.code, code, `${cell} on ${path}: ${JSON.stringify(refusal)}`);
        assert.equal(refusal.message, first?.message, `${cell} on ${path} says something else: ${JSON.stringify([...byPath])}`);
      }
    }
    // The fast lane was a path of both pure cells.
    for (const cell of ["pure:state", "pure:fs"]) assert.ok(answers.get(cell)?.has("fast lane"), cell);
  });
});
