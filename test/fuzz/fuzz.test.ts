/**
 * @module test/fuzz/fuzz.test
 * The fuzz campaign at a small fixed seed, so `npm test` runs it on every
 * change: generated hostile programs through one long-lived host, each
 * answered in time as a typed outcome, a benign call answered after each,
 * worker memory back near idle (campaign.ts). Long campaigns: `npm run fuzz`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runCampaign } from "./campaign.js";
import { programArbitrary, programSource } from "./programs.js";
import fc from "fast-check";

const SEED = 16_016;
const PROGRAMS = 24;

describe("fuzz campaign (fixed seed)", { timeout: 170_000 }, () => {
  it("generates programs that use every primitive and every kind of answer", () => {
    const programs = fc.sample(programArbitrary, { seed: SEED, numRuns: 400 });
    const kinds = new Set(programs.flatMap((p) => [...p.top, ...p.run].map((s) => s.kind)));
    const answers = new Set(programs.map((p) => p.answer));
    assert.equal(kinds.size, 21, `kinds used: ${[...kinds].join(", ")}`);
    assert.equal(answers.size, 11);
    for (const program of programs.slice(0, 20)) assert.match(programSource(program), /name: "fuzz"/);
  });

  it(`${PROGRAMS} programs from seed ${SEED}: the host lives, every call is answered in time as a typed outcome, a benign call after each`, async (t) => {
    const stats = await runCampaign({ count: PROGRAMS, seed: SEED, shrink: false });
    t.diagnostic(`${stats.ran} programs in ${Math.round(stats.durationMs)} ms; outcomes ${JSON.stringify(stats.outcomes)}; latest ${Math.round(stats.maxLateMs)} ms past a limit; worker RSS idle ${Math.round(stats.idleRssMb)} MB, max ${Math.round(stats.maxRssMb)} MB`);
    assert.equal(stats.ran, PROGRAMS);
    assert.deepEqual(stats.failures.map((f) => `seed ${f.seed}: ${f.reason}`), []);
    // The programs are hostile: most of them must end in something other than ok.
    const notOk = Object.entries(stats.outcomes).filter(([kind]) => kind !== "ok").reduce((sum, [, n]) => sum + n, 0);
    assert.ok(notOk >= PROGRAMS / 4, `only ${notOk} of ${PROGRAMS} programs failed: the generator is too tame (${JSON.stringify(stats.outcomes)})`);
  });
});
