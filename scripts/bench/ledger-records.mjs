// What a record costs the ledger's stores, alone (no host, no worker): the
// host's kind of records (ok calls written behind, one tool or four in
// turn, and one call in ten a tool_error) through Ledger.record into SQLite
// (a file) and PostgreSQL (a schema of its own, dropped after, when
// CORRAL_BENCH_POSTGRES_URL or CORRAL_TEST_POSTGRES_URL names a server).
// Two ways: `batch`, every record of a round issued at once (group commits,
// as a busy host's); `single`, one record at a time, each waiting for its
// own commit. Rounds interleave the mixes; the figures are the best round's
// wall and CPU µs per record.
//
// Part of `npm run bench`; alone, to compare two builds on one machine:
//   node scripts/bench/ledger-records.mjs [--dist <dir>] [--records N] [--rounds N]
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { distPath } from "./dist.mjs";
import { benchLedgerSchema } from "./postgres.mjs";

const VERSION = createHash("sha256").update("bench").digest("hex");
/** `errorEvery`: one record in that many is a tool_error (0: every record ok). */
const MIXES = [
  { name: "ok, one tool", errorEvery: 0, tools: 1 },
  { name: "ok, four tools in turn", errorEvery: 0, tools: 4 },
  { name: "1 in 10 a tool_error", errorEvery: 10, tools: 1 },
];
const WAYS = ["batch", "single"];

let sequence = 0;
function callOf(mix, i) {
  sequence += 1;
  const error = mix.errorEvery > 0 && i % mix.errorEvery === mix.errorEvery - 1;
  return {
    source: "agent:bench", tool: `tool${i % mix.tools}`, version: VERSION, callId: `c${sequence}`,
    outcome: error ? "tool_error" : "ok", wallMs: 0.3, cpuMs: 0.2, heapBytes: 1_000_000,
    ...(error ? { message: "the tool threw: bench" } : {}),
  };
}

/** Wall and CPU µs per record of one round (`single` writes a tenth as many: each waits for a commit). */
async function roundOf(ledger, mix, way, records) {
  const n = way === "batch" ? records : Math.ceil(records / 10);
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (way === "batch") await Promise.all(Array.from({ length: n }, (_, i) => ledger.record(callOf(mix, i), { writeBehind: true })));
  else for (let i = 0; i < n; i++) await ledger.record(callOf(mix, i));
  const used = process.cpuUsage(cpu);
  return { wallUs: ((performance.now() - started) * 1000) / n, cpuUs: (used.user + used.system) / n };
}

async function measureStore(store, Ledger, { records, rounds }) {
  const ledger = new Ledger({ store, policy: { strikes: 1_000 } });
  const best = new Map();
  try {
    await roundOf(ledger, MIXES[0], "batch", records);
    for (let round = 0; round < rounds; round++) {
      for (const way of WAYS) {
        for (const mix of MIXES) {
          const key = `${way}|${mix.name}`;
          const { wallUs, cpuUs } = await roundOf(ledger, mix, way, records);
          const kept = best.get(key) ?? { way, mix: mix.name, wallUs: Infinity, cpuUs: Infinity };
          best.set(key, { ...kept, wallUs: Math.min(kept.wallUs, wallUs), cpuUs: Math.min(kept.cpuUs, cpuUs) });
        }
      }
    }
  } finally {
    await ledger.close();
  }
  return [...best.values()];
}

/** `{ records, rounds, sqlite: rows, postgres: rows | undefined }`, each row `{ way, mix, wallUs, cpuUs }`. */
export async function measureLedgerRecords({ records, rounds, dist = distPath(""), log = () => undefined }) {
  const { Ledger } = await import(pathToFileURL(join(dist, "src/ledger/index.js")).href);
  const dir = mkdtempSync(join(tmpdir(), "corral-ledger-records-"));
  try {
    log("ledger records: SQLite");
    const sqlite = await measureStore(join(dir, "ledger.db"), Ledger, { records, rounds });
    const pg = benchLedgerSchema();
    if (pg === undefined) return { records, rounds, sqlite, postgres: undefined };
    log("ledger records: PostgreSQL");
    try {
      return { records, rounds, sqlite, postgres: await measureStore(pg.url, Ledger, { records, rounds }) };
    } finally {
      await pg.drop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const result = await measureLedgerRecords({ records: Number(option("--records", "5000")), rounds: Number(option("--rounds", "5")), dist: resolve(option("--dist", "dist")) });
  for (const [store, rows] of [["sqlite", result.sqlite], ["postgres", result.postgres ?? []]]) {
    for (const row of rows) console.log(`${store.padEnd(9)} ${row.way.padEnd(7)}${row.mix.padEnd(26)} wall ${row.wallUs.toFixed(1).padStart(7)} µs  cpu ${row.cpuUs.toFixed(1).padStart(7)} µs a record`);
  }
}
