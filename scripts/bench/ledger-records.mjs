// What a record costs the ledger's stores, alone (no host, no worker): the
// host's kind of records (ok calls written behind, and one call in ten a
// tool_error) through Ledger.record into SQLite (a file) and PostgreSQL
// (a schema of its own, dropped after, when CORRAL_BENCH_POSTGRES_URL or
// CORRAL_TEST_POSTGRES_URL names a server). Two ways: `batch`, every record
// of a round issued at once (group commits, as a busy host's); `single`, one
// record at a time, each waiting for its own commit. Rounds interleave the
// mixes; the figures are the best round's wall and CPU µs per record.
//
//   node scripts/bench/ledger-records.mjs [--dist <dir>] [--records N] [--rounds N]
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { benchLedgerSchema } from "./postgres.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args[at + 1];
};
const dist = resolve(option("--dist", "dist"));
const records = Number(option("--records", "5000"));
const rounds = Number(option("--rounds", "5"));
const { Ledger } = await import(pathToFileURL(join(dist, "src/ledger/index.js")).href);

const version = createHash("sha256").update("bench").digest("hex");
/** `errorEvery`: one record in that many is a tool_error (0: every record ok). */
const MIXES = [
  { name: "ok, one tool", errorEvery: 0, tools: 1 },
  { name: "ok, four tools alternating", errorEvery: 0, tools: 4 },
  { name: "1 in 10 tool_error, one tool", errorEvery: 10, tools: 1 },
];

let sequence = 0;
function callOf(mix, i) {
  sequence += 1;
  const error = mix.errorEvery > 0 && i % mix.errorEvery === mix.errorEvery - 1;
  return {
    source: "agent:bench", tool: `tool${i % mix.tools}`, version, callId: `c${sequence}`,
    outcome: error ? "tool_error" : "ok", wallMs: 0.3, cpuMs: 0.2, heapBytes: 1_000_000,
    ...(error ? { message: "the tool threw: bench" } : {}),
  };
}

/** Wall and CPU µs per record of one round. */
async function roundOf(ledger, mix, way) {
  const n = way === "batch" ? records : Math.ceil(records / 10);
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (way === "batch") await Promise.all(Array.from({ length: n }, (_, i) => ledger.record(callOf(mix, i), { writeBehind: true })));
  else for (let i = 0; i < n; i++) await ledger.record(callOf(mix, i));
  const used = process.cpuUsage(cpu);
  return { wall: ((performance.now() - started) * 1000) / n, cpu: (used.user + used.system) / n };
}

async function measure(label, open) {
  const ledger = await open();
  const best = new Map();
  try {
    await roundOf(ledger, MIXES[0], "batch");
    for (let round = 0; round < rounds; round++) {
      for (const way of ["batch", "single"]) {
        for (const mix of MIXES) {
          const key = `${way.padEnd(7)}${mix.name}`;
          const { wall, cpu } = await roundOf(ledger, mix, way);
          const kept = best.get(key) ?? { wall: Infinity, cpu: Infinity };
          best.set(key, { wall: Math.min(kept.wall, wall), cpu: Math.min(kept.cpu, cpu) });
        }
      }
    }
  } finally {
    await ledger.close();
  }
  for (const [key, { wall, cpu }] of best) console.log(`${label.padEnd(9)} ${key.padEnd(38)} wall ${wall.toFixed(1).padStart(7)} µs  cpu ${cpu.toFixed(1).padStart(7)} µs a record`);
}

const dir = mkdtempSync(join(tmpdir(), "corral-ledger-bench-"));
try {
  await measure("sqlite", () => new Ledger({ store: join(dir, "ledger.db"), policy: { strikes: 1_000 } }));
  const pg = benchLedgerSchema();
  if (pg === undefined) console.log("postgres   no CORRAL_BENCH_POSTGRES_URL or CORRAL_TEST_POSTGRES_URL: not measured");
  else {
    try {
      await measure("postgres", () => new Ledger({ store: pg.url, policy: { strikes: 1_000 } }));
    } finally {
      await pg.drop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
