// `npm run bench`: corral against raw baselines with the same small tool, in
// one run, side by side and interleaved; prints a table and rewrites
// docs/benchmarks.md.
//
//   node scripts/bench.mjs [--quick] [--build | --no-build]
//
// The first process builds dist/ if it is stale, snapshots it (see
// scripts/bench/prepare.mjs) and re-runs this script under
// `node --no-node-snapshot`, which the raw isolated-vm baselines need (they
// run in the bench process). The second process measures:
//
//   warm call ──── plain · ivm applySync (± timeout) · ivm apply · corral ToolIsolate · IPC floor
//                  · naive pool · corral worker alone · corral · corral with an in-memory ledger
//                  · corral with a PostgreSQL ledger (when CORRAL_BENCH_POSTGRES_URL or
//                    CORRAL_TEST_POSTGRES_URL names a server; a schema of its own, dropped after)
//   isolation ──── (warm and throughput rows) isolation: "call" · every call in a new scope
//   throughput ─── naive pool · corral · corral, in-memory ledger · corral, PostgreSQL ledger
//                  · corral, shallow pipelines only (64 in flight)
//   cold tool ──── new source · same source (same host, new host) · raw fresh isolate
//   mixed ──────── 20 tools, maxWarmIsolates 12 vs default
//   recovery ───── next call after a kill · calls running meanwhile
//   memory ─────── separate process: host and worker RSS, per warm tool
//   idle work ──── a warm isolate's idle-time collection · calls that arrive while a worker collects
//   fetch ──────── a tool's fetch of a 127.0.0.1 page · Node's own fetch · the same host, no fetch
//   payload ────── isolate heap per payload byte: fetch, ctx.fs, ctx.state at 1, 5 and 10 MiB
//   code mode ──── 1,000 nested calls from one script · ToolIsolate.invoke · host.call
//   library ────── 1,000 stored tools: start-up · tool_search (host.call, the index) · declarations
//   ledger ─────── a record through Ledger.record into SQLite and PostgreSQL alone: batched, one at a time
//   profile ────── host under --cpu-prof · worker under --cpu-prof · guest runtime
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick") || process.env.BENCH_QUICK === "1";

const FULL = {
  // fresh: isolation rows (a new isolate per call, ~50 ms each here), sampled less so a run stays minutes long.
  warm: { rounds: 9, plain: 5_000, ivmSync: 3_000, ivmAsync: 1_500, pool: 1_500, sporadic: 60, gapMs: 10, fresh: 60 },
  throughput: { rounds: 5, total: 3_000, inFlight: 64, fresh: 300 },
  cold: { rounds: 6, perRound: 4, newHosts: 4, anatomy: 20 },
  mixed: { rounds: 3, total: 500, inFlight: 16, maxWarmIsolates: 12 },
  recovery: { abortSamples: 5, memorySamples: 2, bystanderEvents: 3, bystanderWindowMs: 1_500, steadyMs: 1_000 },
  memory: { tools: 100 },
  idleWork: { samples: 30 },
  profile: { hostCalls: 5_000, workerCalls: 5_000, guestCalls: 20_000 },
  telemetry: { calls: 200_000, rounds: 7 },
  fetch: { rounds: 5, n: 300 },
  payload: { repeats: 3 },
  codeMode: { rounds: 3, calls: 1_000 },
  library: { tools: 1_000, queries: 300 },
  eventLoop: { rounds: 5, calls: 3_000, inFlight: 64 },
  ledgerRecords: { records: 5_000, rounds: 5 },
};
const QUICK = {
  warm: { rounds: 2, plain: 2_000, ivmSync: 1_000, ivmAsync: 500, pool: 300, sporadic: 20, gapMs: 10, fresh: 20 },
  throughput: { rounds: 1, total: 800, inFlight: 64, fresh: 100 },
  cold: { rounds: 1, perRound: 3, newHosts: 1, anatomy: 5 },
  mixed: { rounds: 1, total: 100, inFlight: 16, maxWarmIsolates: 12 },
  recovery: { abortSamples: 1, memorySamples: 1, bystanderEvents: 1, bystanderWindowMs: 800, steadyMs: 500 },
  memory: { tools: 10 },
  idleWork: { samples: 6 },
  profile: { hostCalls: 300, workerCalls: 300, guestCalls: 5_000 },
  telemetry: { calls: 50_000, rounds: 3 },
  fetch: { rounds: 1, n: 100 },
  payload: { repeats: 1 },
  codeMode: { rounds: 1, calls: 300 },
  library: { tools: 1_000, queries: 100 },
  eventLoop: { rounds: 1, calls: 500, inFlight: 64 },
  ledgerRecords: { records: 1_000, rounds: 1 },
};

if (!process.execArgv.includes("--no-node-snapshot") || process.env.BENCH_DIST === undefined) {
  await relaunch();
} else {
  await main(quick ? QUICK : FULL);
}

/** Builds and snapshots dist/, then runs the measuring process with the flag isolated-vm needs. */
async function relaunch() {
  const { prepareDist, removeSnapshot } = await import("./bench/prepare.mjs");
  const snapshot = prepareDist({ forceBuild: args.includes("--build"), skipBuild: args.includes("--no-build") });
  const child = spawn(process.execPath, ["--no-node-snapshot", fileURLToPath(import.meta.url), ...args], {
    stdio: "inherit",
    env: { ...process.env, BENCH_DIST: snapshot },
  });
  const forward = (signal) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  const code = await new Promise((resolve) => child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
  removeSnapshot(snapshot);
  process.exit(code);
}

async function main(config) {
  const started = performance.now();
  const log = (message) => console.error(`bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${message}`);
  const { cpuSnapshot, describeMachine, currentLoad, othersShare } = await import("./bench/machine.mjs");
  const { distUrl } = await import("./bench/dist.mjs");
  const { rawToolScript } = await import("./bench/tools.mjs");
  const baselines = await import("./bench/baselines.mjs");
  const { createInProcessToolIsolate, createWarmCorral, createScopedCorral } = await import("./bench/contenders.mjs");
  const { createDirectWorker } = await import("./bench/direct-worker.mjs");
  const { measureWarm, measureThroughput } = await import("./bench/latency.mjs");
  const { measureCold } = await import("./bench/cold.mjs");
  const { measureMixed } = await import("./bench/mixed.mjs");
  const { measureRecovery } = await import("./bench/recovery.mjs");
  const { measureMemory } = await import("./bench/memory.mjs");
  const { measureIdleCollection } = await import("./bench/idle-collection.mjs");
  const { profileHost, profileWorker, profileGuestSide } = await import("./bench/profile.mjs");
  const { renderConsole, writeMarkdown } = await import("./bench/report.mjs");
  const { benchLedgerSchema } = await import("./bench/postgres.mjs");
  const { measureTelemetry } = await import("./bench/telemetry.mjs");
  const { measureFetch } = await import("./bench/fetch.mjs");
  const { measurePayloads } = await import("./bench/payload.mjs");
  const { measureCodeMode } = await import("./bench/codemode.mjs");
  const { measureLibrary } = await import("./bench/library.mjs");
  const { measureEventLoop } = await import("./bench/event-loop.mjs");
  const { measureLedgerRecords } = await import("./bench/ledger-records.mjs");

  const machine = describeMachine();
  const loadBefore = currentLoad();
  const cpuBefore = cpuSnapshot();
  const tempDir = mkdtempSync(join(tmpdir(), "corral-bench-"));
  const results = { mode: quick ? "quick" : "full", machine, loadBefore, warmGapMs: config.warm.gapMs };
  const open = [];
  const closeAll = async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  };
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.isolatedVm.name} ${machine.isolatedVm.version}, load ${loadBefore.map((v) => v.toFixed(2)).join(" ")}`);
  try {
    // Warm call and throughput: every contender alive at once, each idle while the others run.
    const script = await rawToolScript();
    const plain = baselines.createPlainBaseline(script);
    const inProcess = await baselines.createInProcessIsolate(script);
    open.push(inProcess);
    const naive = await baselines.createNaivePool(script, tempDir);
    open.push(naive);
    const ipcFloor = await baselines.createIpcFloor(tempDir);
    open.push(ipcFloor);
    const toolIsolate = await createInProcessToolIsolate(tempDir);
    open.push(toolIsolate);
    const corral = await createWarmCorral(tempDir);
    open.push(corral);
    const direct = await createDirectWorker(tempDir, { settingsFromPid: corral.pids[0] });
    open.push(direct);
    // The same host with the ledger in memory: what the SQLite ledger costs a call.
    const memoryLedger = await createWarmCorral(tempDir, { ledger: { store: false } });
    open.push(memoryLedger);
    // The same host on a PostgreSQL ledger (a schema of its own on 127.0.0.1), when a server is named.
    const pgSchema = benchLedgerSchema();
    if (pgSchema !== undefined) open.push({ close: () => pgSchema.drop() });
    else log("no CORRAL_BENCH_POSTGRES_URL or CORRAL_TEST_POSTGRES_URL: no PostgreSQL ledger rows");
    const pgLedger = pgSchema === undefined ? undefined : await createWarmCorral(tempDir, { ledger: { store: pgSchema.url } });
    if (pgLedger !== undefined) open.push(pgLedger);
    // What isolation costs: a fresh isolate for every call, and a call in a
    // scope never seen before (cold, and an LRU eviction once the cache is full).
    const freshCall = await createWarmCorral(tempDir, { isolation: "call" });
    open.push(freshCall);
    const newScope = await createScopedCorral(tempDir);
    open.push(newScope);
    log("contenders ready; warm calls");
    const w = config.warm;
    results.warm = await measureWarm(
      [
        { name: "plain", kind: "sync", call: plain.call, n: w.plain },
        { name: "ivmSync", kind: "sync", call: inProcess.callSync, n: w.ivmSync },
        { name: "ivmSyncTimeout", kind: "sync", call: inProcess.callSyncTimeout, n: w.ivmSync },
        { name: "ivmAsync", kind: "async", call: inProcess.callAsync, n: w.ivmAsync },
        { name: "toolIsolate", kind: "async", call: toolIsolate.call, n: w.ivmAsync },
        { name: "ipcFloor", kind: "async", call: ipcFloor.call, n: w.pool, pids: ipcFloor.pids },
        { name: "naive", kind: "async", call: naive.call, n: w.pool, pids: naive.pids },
        { name: "corralWorker", kind: "async", call: direct.call, n: w.pool, pids: direct.pids },
        { name: "corral", kind: "async", call: corral.call, n: w.pool, pids: corral.pids },
        { name: "corralMemoryLedger", kind: "async", call: memoryLedger.call, n: w.pool, pids: memoryLedger.pids },
        ...(pgLedger === undefined ? [] : [{ name: "corralPostgresLedger", kind: "async", call: pgLedger.call, n: w.pool, pids: pgLedger.pids }]),
        { name: "corralFreshCall", kind: "async", call: freshCall.call, n: w.fresh, pids: freshCall.pids },
        { name: "corralNewScope", kind: "async", call: newScope.call, n: w.fresh, pids: newScope.pids },
        // Sporadic callers: each call after w.gapMs with nothing running.
        { name: "naiveSporadic", kind: "async", call: naive.call, n: w.sporadic, gapMs: w.gapMs },
        { name: "corralWorkerSporadic", kind: "async", call: direct.call, n: w.sporadic, gapMs: w.gapMs },
        { name: "corralSporadic", kind: "async", call: corral.call, n: w.sporadic, gapMs: w.gapMs },
      ],
      { rounds: w.rounds, log },
    );
    for (const done of [direct, ipcFloor]) {
      await done.close();
      open.splice(open.indexOf(done), 1);
    }

    // The default against shallow pipelines only: no call is sent more than
    // pipelineDepth deep, so messages carry about one call each.
    const { resolveHostOptions } = await import(distUrl("src/options.js"));
    const defaults = resolveHostOptions({});
    const variantOptions = { quickPipelineDepth: defaults.pipelineDepth };
    const variant = resolveHostOptions(variantOptions);
    results.throughputVariant = {
      ...variantOptions,
      maxInFlight: variant.maxInFlight,
      defaultMaxInFlight: defaults.maxInFlight,
      defaultQuickPipelineDepth: defaults.quickPipelineDepth,
      workers: defaults.workers,
      pipelineDepth: defaults.pipelineDepth,
    };
    const pipelined = await createWarmCorral(tempDir, variantOptions);
    open.push(pipelined);
    log("throughput");
    const t = config.throughput;
    results.throughput = await measureThroughput(
      [
        { name: "naive", call: naive.call, total: t.total, inFlight: t.inFlight, pids: naive.pids },
        { name: "corral", call: corral.call, total: t.total, inFlight: t.inFlight, pids: corral.pids },
        { name: "corralMemoryLedger", call: memoryLedger.call, total: t.total, inFlight: t.inFlight, pids: memoryLedger.pids },
        ...(pgLedger === undefined ? [] : [{ name: "corralPostgresLedger", call: pgLedger.call, total: t.total, inFlight: t.inFlight, pids: pgLedger.pids }]),
        { name: "corralVariant", call: pipelined.call, total: t.total, inFlight: t.inFlight, pids: pipelined.pids },
        { name: "corralFreshCall", call: freshCall.call, total: t.fresh, inFlight: t.inFlight, pids: freshCall.pids },
        { name: "corralNewScope", call: newScope.call, total: t.fresh, inFlight: t.inFlight, pids: newScope.pids },
      ],
      { rounds: t.rounds, log },
    );
    results.scopes = { scopes: newScope.scopes(), workerRssMb: newScope.workerRssMb() };
    await closeAll();

    log("cold tools");
    results.cold = await measureCold(tempDir, { ...config.cold, coldIsolate: baselines.createColdIsolateBaseline(script), log });
    results.cold.anatomy = baselines.freshIsolateAnatomy(script, config.cold.anatomy);
    log("mixed tools");
    results.mixed = await measureMixed(tempDir, { ...config.mixed, log });
    log("recovery");
    results.recovery = await measureRecovery(tempDir, { ...config.recovery, log });
    log("memory (separate process)");
    results.memory = await measureMemory(tempDir, config.memory);
    results.idleWork = await measureIdleCollection(tempDir, { ...config.idleWork, log });
    log("fetch from a tool");
    results.fetch = await measureFetch(tempDir, { ...config.fetch, log });
    log("capability payloads: isolate heap per byte");
    results.payload = await measurePayloads(tempDir, { ...config.payload, log });
    log("telemetry hooks");
    results.telemetry = await measureTelemetry(config.telemetry);
    log("code mode: nested calls");
    results.codeMode = await measureCodeMode(tempDir, { ...config.codeMode, log });
    log("library: 1,000 agent-written tools");
    results.library = await measureLibrary(tempDir, { ...config.library, log });
    log("the host's event loop, per ledger");
    results.eventLoop = await measureEventLoop(tempDir, { ...config.eventLoop, log });
    results.ledgerRecords = await measureLedgerRecords({ ...config.ledgerRecords, log });
    log("profiles: host");
    results.profile = { host: await profileHost(tempDir, { calls: config.profile.hostCalls }) };
    log("profiles: worker");
    results.profile.worker = await profileWorker(tempDir, { calls: config.profile.workerCalls });
    log("profiles: guest");
    results.profile.guest = await profileGuestSide(tempDir, { calls: config.profile.guestCalls });
  } finally {
    await closeAll();
    rmSync(tempDir, { recursive: true, force: true });
  }
  results.loadAfter = currentLoad();
  results.othersCpuShare = othersShare(cpuBefore, cpuSnapshot(), machine.cores);
  results.durationS = (performance.now() - started) / 1000;
  console.log(renderConsole(results));
  const docs = join(ROOT, "docs/benchmarks.md");
  writeMarkdown(docs, results);
  log(`wrote ${docs}`);
  // esbuild's service and tinypool's handles would keep the process alive a little longer.
  process.exit(0);
}
