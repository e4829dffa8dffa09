/**
 * @module test/fuzz/cli
 * `npm run fuzz -- --count N --seed S [--workers W] [--no-shrink]`: a long
 * fuzz campaign (campaign.ts). Prints progress, each failure's seed, reason
 * and shrunk program, and a summary; exits 1 if any program failed.
 * `--campaign payloads` runs the payload campaign instead (payloads.ts):
 * capability payload sizes around each cap; `--campaign state` the
 * concurrent-state-writes campaign (state-writes.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCampaign, type Failure } from "./campaign.js";
import { runPayloadCampaign } from "./payloads.js";
import { runStateCampaign } from "./state-writes.js";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "1000" },
    seed: { type: "string", default: String(Date.now() % 1_000_000_000) },
    workers: { type: "string", default: "2" },
    "no-shrink": { type: "boolean", default: false },
    campaign: { type: "string", default: "programs" },
  },
});
const count = Number(values.count);
const seed = Number(values.seed);
const workers = Number(values.workers);
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed) || !Number.isInteger(workers) || workers < 1) {
  console.error("usage: npm run fuzz -- --count <programs> --seed <integer> [--workers <n>] [--no-shrink]");
  process.exit(2);
}

if (values.campaign === "payloads") {
  console.log(`corral fuzz (payloads): ${count} cases from seed ${seed}`);
  const dir = mkdtempSync(join(tmpdir(), "corral-payload-fuzz-"));
  const stats = await runPayloadCampaign(dir, { count, seed, onFailure: (f) => console.log(`\nFAILURE seed=${f.seed}: ${f.reason}\n  replay: npm run fuzz -- --campaign payloads --count 1 --seed ${f.seed}`) }).finally(() =>
    rmSync(dir, { recursive: true, force: true }),
  );
  console.log(JSON.stringify({ cases: stats.ran, failures: stats.failures, struck: stats.struck, outcomes: stats.outcomes }, null, 2));
  process.exit(stats.failures.length === 0 && stats.struck.length === 0 ? 0 : 1);
} else if (values.campaign === "state") {
  const dir = mkdtempSync(join(tmpdir(), "corral-fuzz-state-"));
  console.log(`corral fuzz (state writes): ${count} batches from seed ${seed}`);
  let failures = 0;
  let refused = 0;
  try {
    await runStateCampaign({
      count,
      seed,
      dir,
      onResult(at, program, verdict) {
        if (verdict.ok) refused += verdict.refused;
        else {
          failures++;
          console.log(`\nFAILURE seed=${at}: ${verdict.reason}\n  replay: npm run fuzz -- --campaign state --count 1 --seed ${at}\n  program: ${JSON.stringify(program)}`);
        }
        if ((at - seed + 1) % 100 === 0) console.log(`  ${at - seed + 1}/${count} batches, ${failures} failures, ${refused} sets refused too_large`);
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ batches: count, failures, refusedTooLarge: refused }));
  process.exit(failures === 0 ? 0 : 1);
} else if (values.campaign !== "programs") {
  console.error("--campaign is programs (the default), payloads or state");
  process.exit(2);
}

const printFailure = (failure: Failure): void => {
  console.log(`\nFAILURE seed=${failure.seed}: ${failure.reason}`);
  console.log(`  replay: npm run fuzz -- --count 1 --seed ${failure.seed}`);
  console.log(`  program: ${JSON.stringify(failure.program)}`);
  if (failure.shrunk === null) console.log(`  ${failure.alone}; it failed after seeds ${failure.after.join(" ")}`);
  else console.log(`  shrunk program (fails alone): ${JSON.stringify(failure.shrunk)}`);
  console.log(failure.source.replace(/^/gm, "  | "));
};

console.log(`corral fuzz: ${count} programs from seed ${seed}, ${workers} workers`);
const startedAt = performance.now();
const stats = await runCampaign({
  count,
  seed,
  workers,
  shrink: !values["no-shrink"],
  onFailure: printFailure,
  onProgress(done, s) {
    if (done % 100 === 0 || done === count) {
      const perProgram = (performance.now() - startedAt) / done;
      console.log(`  ${done}/${count} programs, ${s.failures.length} failures, ${s.starved.length} benign timeouts when starved, ${perProgram.toFixed(0)} ms each, worker RSS max ${s.maxRssMb.toFixed(0)} MB, latest answer ${s.maxLateMs.toFixed(0)} ms past its limit`);
    }
  },
});
console.log(
  JSON.stringify(
    {
      programs: stats.ran,
      failures: stats.failures.map((f) => ({ seed: f.seed, reason: f.reason })),
      seconds: Math.round(stats.durationMs / 1000),
      msPerProgram: Math.round(stats.durationMs / Math.max(1, stats.ran)),
      outcomes: stats.outcomes,
      maxLateMs: Math.round(stats.maxLateMs),
      idleRssMb: Math.round(stats.idleRssMb),
      maxRssMb: Math.round(stats.maxRssMb),
      starvedBenignTimeouts: stats.starved,
    },
    null,
    2,
  ),
);
process.exit(stats.failures.length === 0 ? 0 : 1);
