/**
 * @module test/fuzz/payloads.test
 * The payload campaign at a fixed seed, so `npm test` runs it on every
 * change (payloads.ts): capability payload sizes around each cap, each
 * answered whole within its cap and `too_large` past it, at the default
 * memory limit, with no strike in the ledger. Long campaigns:
 * `npm run fuzz -- --campaign payloads`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { capOf, PAYLOAD_PATHS, payloadCaseArbitrary, PROFILES, runPayloadCampaign, sizeOf } from "./payloads.js";
import { tempDir } from "../helpers/host.js";

const SEED = 27_027;
const CASES = 40;

describe("payload campaign (fixed seed)", { timeout: 240_000 }, () => {
  it("generates every path within and past its cap, at one byte from it and far from it, in every profile", () => {
    const cases = fc.sample(payloadCaseArbitrary, { seed: SEED, numRuns: 600 });
    const seen = new Set(cases.map((c) => `${c.path}:${sizeOf(c) <= capOf(PROFILES[c.profile] as (typeof PROFILES)[number], c.path) ? "within" : "past"}:${c.profile}`));
    assert.equal(seen.size, PAYLOAD_PATHS.length * 2 * PROFILES.length, [...seen].join(" "));
    const atTheEdge = cases.filter((c) => Math.abs(sizeOf(c) - capOf(PROFILES[c.profile] as (typeof PROFILES)[number], c.path)) <= 1);
    assert.ok(atTheEdge.length > 50, `${atTheEdge.length} cases at the cap or one byte from it`);
  });

  it(`${CASES} cases from seed ${SEED}: whole within the cap, too_large past it, never a strike`, async (t) => {
    const dir = tempDir("corral-payload-fuzz-");
    try {
      const stats = await runPayloadCampaign(dir.path, { count: CASES, seed: SEED });
      t.diagnostic(`${stats.ran} cases; ${JSON.stringify(stats.outcomes)}`);
      assert.equal(stats.ran, CASES);
      assert.deepEqual(stats.failures.map((f) => `seed ${f.seed}: ${f.reason}`), []);
      assert.deepEqual(stats.struck, []);
    } finally {
      dir.remove();
    }
  });
});
