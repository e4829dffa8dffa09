/**
 * @module test/capabilities/state-races.test
 * `ctx.state.set` under concurrency, end to end (issue 27): real hosts and
 * workers, every store a host can keep state in (memory beside a memory
 * ledger, the ledger's SQLite file, PostgreSQL when the test server is set).
 * Whatever the store, 40 sets in flight at once (in one call with
 * Promise.all, in 40 calls of one tool, spread over two tools of one source,
 * and, on PostgreSQL, over two hosts sharing the schema) keep exactly as
 * many values as fit the source's quota; every other set is refused
 * `too_large`.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost, type Host, type HostOptions, type ToolResult } from "../../src/index.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";

const dir = tempDir("corral-state-races-");
after(() => dir.remove());

const VALUE_CHARS = 4_998;
const QUOTA = { quotaBytes: 50_000, maxKeys: 1_000 };
/** Each entry: a 3-character key and a 5,000-byte JSON string. */
const FITTING = Math.floor(QUOTA.quotaBytes / (3 + VALUE_CHARS + 2));

const writers = `import { defineTool } from "corral";
import { z } from "zod";
const writer = (name) => defineTool({
  name, description: "keeps values, all at once", input: z.object({ keys: z.array(z.string()) }), effects: ["state_write"],
  async run({ keys }, ctx) {
    return Promise.all(keys.map(async (key) => {
      try { await ctx.state.set(key, "x".repeat(${VALUE_CHARS})); return { kept: true }; }
      catch (error) { return { kept: false, code: error.code }; }
    }));
  },
});
export default [writer("writer_a"), writer("writer_b")];`;

function hostOf(ledger: HostOptions["ledger"], cache: string): Host {
  return createHost({
    workers: 2,
    cacheDir: join(dir.path, cache),
    ledger,
    effects: { agent: { state_write: "allow" } },
    capabilities: { state: QUOTA },
  });
}

/**
 * 40 sets in flight at once, keys k00..k39, in `calls` calls (40: one set
 * each; 1: one call setting all 40 with Promise.all), each call through the
 * host and tool its index picks.
 */
async function race(hosts: Host[], tools: string[], calls = 40): Promise<{ kept: number; codes: Set<string> }> {
  const keys = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, "0")}`);
  const results: ToolResult[] = await Promise.all(
    Array.from({ length: calls }, (_, c) => (hosts[c % hosts.length] as Host).call(tools[c % tools.length] as string, { keys: keys.filter((_, i) => i % calls === c) })),
  );
  const codes = new Set<string>();
  let kept = 0;
  for (const result of results) {
    assert.ok(result.ok, JSON.stringify(result));
    for (const answer of result.ok ? (result.structured as { kept: boolean; code?: string }[]) : []) {
      if (answer.kept) kept++;
      else codes.add(answer.code ?? "");
    }
  }
  return { kept, codes };
}

async function withHosts(ledgers: HostOptions["ledger"][], fn: (hosts: Host[]) => Promise<void>): Promise<void> {
  const before = childPids();
  const hosts = ledgers.map((ledger, i) => hostOf(ledger, `cache-${i}`));
  try {
    for (const host of hosts) assert.ok((await host.load({ source: "agent:writers", code: writers })).ok);
    await fn(hosts);
  } finally {
    for (const host of hosts) await host.close();
    await assertNoWorkersLeft(before);
  }
}

describe("ctx.state.set under concurrency keeps the source's quota", { timeout: 120_000 }, () => {
  let n = 0;
  const stores: [string, () => HostOptions["ledger"]][] = [
    ["memory (a memory ledger)", () => ({ store: false })],
    ["SQLite (the ledger's file)", () => ({ store: join(dir.path, `ledger-${++n}.db`) })],
  ];
  for (const [name, ledger] of stores) {
    it(`${name}: 40 sets in one call, 40 calls of one tool, and 40 spread over two tools of the source`, async () => {
      await withHosts([ledger()], async ([host]) => {
        const inOne = await race([host as Host], ["writer_a"], 1);
        assert.equal(inOne.kept, FITTING);
        assert.deepEqual([...inOne.codes], ["too_large"]);
      });
      await withHosts([ledger()], async ([host]) => {
        const one = await race([host as Host], ["writer_a"]);
        assert.equal(one.kept, FITTING);
        assert.deepEqual([...one.codes], ["too_large"]);
      });
      await withHosts([ledger()], async ([host]) => {
        const two = await race([host as Host], ["writer_a", "writer_b"]);
        assert.equal(two.kept, FITTING);
        assert.deepEqual([...two.codes], ["too_large"]);
      });
    });
  }

  it("PostgreSQL: 40 sets spread over two hosts sharing the schema", { skip: SKIP_POSTGRES }, async () => {
    const schemas = testSchemas("state_races");
    try {
      const schema = schemas.next();
      const url = `${postgresUrl()}${postgresUrl().includes("?") ? "&" : "?"}schema=${schema}`;
      await withHosts([{ store: url }, { store: url }], async (hosts) => {
        const fleet = await race(hosts, ["writer_a", "writer_b"], 4);
        assert.equal(fleet.kept, FITTING);
        assert.deepEqual([...fleet.codes], ["too_large"]);
      });
    } finally {
      await schemas.dropAll();
    }
  });
});
