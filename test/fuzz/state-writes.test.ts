/**
 * @module test/fuzz/state-writes.test
 * The concurrent-state-writes generator (state-writes.ts) at a fixed seed,
 * so `npm test` runs it on every change: batches of writes in flight at
 * once around a source's quota, on memory, SQLite and (when its server is
 * set) PostgreSQL; and the checker itself, shown a store that let writes
 * past the quota or lost one, says so. Long campaigns:
 * `npm run fuzz -- --campaign state --count N --seed S`.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkStateRun, runStateCampaign, stateProgramArbitrary, type StateProgram } from "./state-writes.js";
import { tempDir } from "../helpers/host.js";

const SEED = 27_027;
const PROGRAMS = 16;
const dir = tempDir("corral-fuzz-state-");
after(() => dir.remove());

describe("fuzz: concurrent state writes around the quota (fixed seed)", { timeout: 170_000 }, () => {
  it("generates batches over every store available, every quota profile, and sizes on both sides of the quota", () => {
    const programs = fc.sample(stateProgramArbitrary, { seed: SEED, numRuns: 300 });
    assert.ok(new Set(programs.map((p) => p.store)).size >= 2);
    assert.equal(new Set(programs.map((p) => p.profile)).size, 4);
    assert.ok(programs.some((p) => p.calls.length >= 30), "no batch of 30 calls or more");
    assert.ok(programs.some((p) => p.calls.some((call) => call.ops.some((op) => op.op === "delete"))), "no delete");
    assert.ok(programs.some((p) => p.calls.some((call) => call.together && call.ops.length >= 10)), "no call with 10 sets at once");
  });

  it("the checker refuses a store past its quota, a lost write, an invented value and an unjustified refusal", () => {
    const program: StateProgram = { store: "memory", profile: 0, writers: 1, calls: [1, 2, 3].map((key) => ({ together: false, ops: [{ op: "set" as const, key, chars: 900 }] })) };
    const big = "x".repeat(900);
    assert.equal(checkStateRun(program, [["ok"], ["ok"], ["too_large"]], { k001: big, k002: big }).ok, true);
    assert.match(String((checkStateRun(program, [["ok"], ["ok"], ["ok"]], { k001: big, k002: big, k003: big }) as { reason: string }).reason), /past its quota/);
    assert.match(String((checkStateRun(program, [["ok"], ["ok"], ["too_large"]], { k001: big }) as { reason: string }).reason), /is gone/);
    assert.match(String((checkStateRun(program, [["ok"], ["ok"], ["too_large"]], { k001: big, k002: "y" }) as { reason: string }).reason), /no call set ok/);
    const small: StateProgram = { ...program, calls: [1, 2].map((key) => ({ together: false, ops: [{ op: "set" as const, key, chars: 10 }] })) };
    assert.match(String((checkStateRun(small, [["ok"], ["too_large"]], { k001: "x".repeat(10) }) as { reason: string }).reason), /fits/);
  });

  it(`${PROGRAMS} programs from seed ${SEED}: every batch keeps within the quota exactly what it wrote`, async (t) => {
    const results = await runStateCampaign({ count: PROGRAMS, seed: SEED, dir: dir.path });
    const failed = results.filter((r) => !r.verdict.ok).map((r) => `seed ${r.seed}: ${(r.verdict as { reason: string }).reason} ${JSON.stringify(r.program).slice(0, 300)}`);
    assert.deepEqual(failed, []);
    const refused = results.reduce((sum, r) => sum + (r.verdict.ok ? r.verdict.refused : 0), 0);
    t.diagnostic(`${results.length} batches, ${results.reduce((s, r) => s + r.program.calls.length, 0)} calls, ${refused} sets refused too_large`);
    // The generator must reach the quota: some sets are refused.
    assert.ok(refused > 0, "no set was ever refused: the sizes never reach the quota");
  });
});
