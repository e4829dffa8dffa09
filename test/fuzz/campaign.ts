/**
 * @module test/fuzz/campaign
 * Runs generated hostile programs (programs.ts) as a tool, one after another,
 * through ONE long-lived host, and checks after each what the host promises:
 *
 *  - the host is alive;
 *  - the load is answered as a typed LoadResult, the call as a well-formed
 *    ToolResult of a known kind, each before its limit plus the watchdog's
 *    grace plus `slackMs` (the machine is shared; lateness is reported);
 *  - a benign call is answered correctly after it;
 *  - every worker's resident memory is back within `rssBoundMb` of its idle
 *    size (the warm cache's heap budget plus slack), waiting up to 3 s.
 *
 * Program i is generated from seed `seed + i`, so any one can be replayed
 * alone (`--seed <that seed> --count 1`). A program that fails is run again
 * alone in a fresh host: if it fails there too, fast-check shrinks it in that
 * host (the failing value as the example to shrink from); if not, it failed
 * only after the programs before it, and is reported with their seeds
 * (`after`). Either way the failure keeps its seed, reason and source, and
 * the campaign goes on (in a fresh host if the long-lived one died).
 */
import { cpus, loadavg } from "node:os";
import fc from "fast-check";
import { createHost, OUTCOME_KINDS, ToolResult, type Host, type HostOptions } from "../../src/index.js";
import { residentBytes, tinypoolChildPids } from "../../src/pool/process-memory.js";
import { programArbitrary, programSource, type Program } from "./programs.js";

const BENIGN = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({ name: "fuzz_benign", description: "adds", input: z.object({ a: z.number(), b: z.number() }), effects: [], run: ({ a, b }) => ({ sum: a + b }) });
`;

const LOAD_FAILURES = new Set(["compile_error", "timeout", "memory", "crash", "quarantined"]);

export type CampaignOptions = {
  count: number;
  seed: number;
  workers?: number;
  /** Added to limit + grace before a call counts as unanswered (a shared machine stalls). @default 3000 */
  slackMs?: number;
  /** How far above its idle size a worker's RSS may stay. @default maxWarmHeapMb + 96 */
  rssBoundMb?: number;
  /** Whether to shrink failures (each shrink step runs a program). @default true */
  shrink?: boolean;
  onProgress?: (done: number, stats: CampaignStats) => void;
  onFailure?: (failure: Failure) => void;
};

export type Failure = {
  seed: number;
  reason: string;
  program: Program;
  /** The smallest program that still fails alone; null when it did not fail alone. */
  shrunk: Program | null;
  /** What the program alone did in a fresh host, when it passed there: it failed only after others. */
  alone?: string;
  /** Seeds of the programs run before it in the long-lived host, oldest first (at most 20). */
  after: number[];
  source: string;
};

export type CampaignStats = {
  ran: number;
  failures: Failure[];
  durationMs: number;
  /** Load outcomes (`load:<kind>`) and call outcomes by kind. */
  outcomes: Record<string, number>;
  /** The most a call was answered after its limit (ms), over calls that reached it. */
  maxLateMs: number;
  idleRssMb: number;
  maxRssMb: number;
  /**
   * Benign calls answered `timeout` on a starved machine (load average over
   * twice the cores) and answered correctly when asked again: time limits
   * are wall-clock (SECURITY.md), so these are counted, with the load seen,
   * not failed. A benign call that fails again is a failure.
   */
  starved: { seed: number; load: number }[];
};

const HOST_OPTIONS = {
  loadTimeoutMs: 500,
  loadMemoryMb: 64,
  maxWarmIsolates: 8,
  maxWarmHeapMb: 128,
  ledger: { store: false as const, policy: { strikes: 1000, windowMs: 1 } },
} satisfies HostOptions;

const GRACE_MS = 250;

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | "unanswered"> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"unanswered">((resolve) => {
    timer = setTimeout(() => resolve("unanswered"), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function workerRssMb(pids: () => number[]): number[] {
  return pids().map((pid) => (residentBytes(pid) ?? 0) / 2 ** 20);
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignStats> {
  const started = performance.now();
  const slackMs = options.slackMs ?? 3_000;
  const before = tinypoolChildPids();
  const pids = () => tinypoolChildPids().filter((pid) => !before.includes(pid));
  const open = (): Host => createHost({ ...HOST_OPTIONS, workers: options.workers ?? 2, cacheDir: false });
  let host = open();
  const stats: CampaignStats = { ran: 0, failures: [], durationMs: 0, outcomes: {}, maxLateMs: 0, idleRssMb: 0, maxRssMb: 0, starved: [] };
  const count = (key: string) => (stats.outcomes[key] = (stats.outcomes[key] ?? 0) + 1);
  try {
    let currentSeed = options.seed;
    await loadBenign(host);
    stats.idleRssMb = Math.max(0, ...workerRssMb(pids));
    const rssBoundMb = options.rssBoundMb ?? HOST_OPTIONS.maxWarmHeapMb + 96;

    const check = async (on: Host, program: Program, record: boolean): Promise<string | null> => {
      const reason = await runOne(on, program, slackMs, record ? count : () => {}, (late) => {
        if (record) stats.maxLateMs = Math.max(stats.maxLateMs, late);
      }, (load) => {
        if (record) stats.starved.push({ seed: currentSeed, load });
      });
      if (reason !== null) return reason;
      let rss = workerRssMb(pids);
      for (let waited = 0; Math.max(0, ...rss) > stats.idleRssMb + rssBoundMb && waited < 3_000; waited += 100) {
        await sleep(100);
        rss = workerRssMb(pids);
      }
      const top = Math.max(0, ...rss);
      if (record) stats.maxRssMb = Math.max(stats.maxRssMb, top);
      if (top > stats.idleRssMb + rssBoundMb) return `a worker's memory stayed at ${Math.round(top)} MB, over its idle ${Math.round(stats.idleRssMb)} MB + ${rssBoundMb} MB`;
      return null;
    };

    const history: number[] = [];
    for (let index = 0; index < options.count; index++) {
      const seed = options.seed + index;
      currentSeed = seed;
      const [program] = fc.sample(programArbitrary, { seed, numRuns: 1 });
      if (program === undefined) throw new Error("fast-check generated no program");
      const reason = await check(host, program, true);
      stats.ran += 1;
      if (reason !== null) {
        const failure = await isolateFailure(open, program, seed, reason, history.slice(-20), options.shrink !== false, check);
        stats.failures.push(failure);
        options.onFailure?.(failure);
        if (!host.alive) {
          host = open();
          await loadBenign(host);
        }
      }
      history.push(seed);
      options.onProgress?.(index + 1, stats);
    }
  } finally {
    stats.durationMs = performance.now() - started;
    await host.close();
  }
  return stats;
}

async function loadBenign(host: Host): Promise<void> {
  // A starved machine can stretch even this load past loadTimeoutMs: the load
  // is the harness's, not a program's, so it is tried again.
  let benign = await host.load({ source: "host:fuzz-benign", code: BENIGN });
  for (let attempt = 1; !benign.ok && benign.error.kind === "timeout" && attempt < 5; attempt++) {
    benign = await host.load({ source: "host:fuzz-benign", code: BENIGN });
  }
  if (!benign.ok) throw new Error(`the benign tool did not load: ${JSON.stringify(benign)}`);
  await Promise.all([host.call("fuzz_benign", { a: 1, b: 2 }), host.call("fuzz_benign", { a: 1, b: 2 })]);
}

type Check = (on: Host, program: Program, record: boolean) => Promise<string | null>;

/** Runs a failing program alone in a fresh host; shrinks it there if it fails alone. */
async function isolateFailure(open: () => Host, program: Program, seed: number, reason: string, after: number[], shrinkIt: boolean, check: Check): Promise<Failure> {
  const fresh = open();
  try {
    try {
      await loadBenign(fresh);
    } catch (error) {
      return { seed, reason, program, shrunk: null, alone: `not replayed alone: ${error instanceof Error ? error.message : String(error)}`, after, source: programSource(program) };
    }
    const alone = await check(fresh, program, false);
    if (alone === null) return { seed, reason, program, shrunk: null, alone: "passed alone in a fresh host", after, source: programSource(program) };
    const shrunk = shrinkIt ? await shrink(program, seed, (p) => check(fresh, p, false)) : program;
    return { seed, reason, program, shrunk, after, source: programSource(shrunk) };
  } finally {
    await fresh.close();
  }
}

/** Loads and calls one program, then the benign tool; answers why it failed, or null. */
/** The machine is starved: more runnable work than twice its cores. */
function starvedLoad(): number | undefined {
  const load = loadavg()[0] ?? 0;
  return load > cpus().length * 2 ? load : undefined;
}

async function runOne(host: Host, program: Program, slackMs: number, count: (key: string) => void, late: (ms: number) => void, starved: (load: number) => void): Promise<string | null> {
  if (!host.alive) return "the host died";
  const loaded = await withDeadline(host.load({ source: "host:fuzz", code: programSource(program) }), 30_000 + slackMs);
  if (loaded === "unanswered") return "the load was not answered within 30 s";
  if (!loaded.ok) {
    count(`load:${loaded.error.kind}`);
    if (!LOAD_FAILURES.has(loaded.error.kind) || typeof loaded.error.message !== "string") return `a malformed load failure: ${JSON.stringify(loaded).slice(0, 300)}`;
  } else {
    const limitMs = program.timeoutMs;
    const started = performance.now();
    const result = await withDeadline(host.call("fuzz", {}), limitMs + GRACE_MS + slackMs);
    const wallMs = performance.now() - started;
    if (result === "unanswered") return `the call was not answered within its ${limitMs} ms limit + ${GRACE_MS} ms grace + ${slackMs} ms slack`;
    const parsed = ToolResult.safeParse(result);
    if (!parsed.success) return `a malformed result: ${JSON.stringify(result).slice(0, 300)}`;
    const kind = result.ok ? "ok" : result.error.kind;
    if (!(OUTCOME_KINDS as readonly string[]).includes(kind)) return `an unknown outcome kind ${kind}`;
    count(kind);
    if (wallMs > limitMs) late(wallMs - limitMs);
  }
  if (!host.alive) return "the host died";
  // Generous: after a kill the call may wait for a fresh worker to boot on a loaded machine.
  let benign = await withDeadline(host.call("fuzz_benign", { a: 2, b: 3 }), 15_000 + slackMs);
  const load = starvedLoad();
  if (benign !== "unanswered" && !benign.ok && benign.error.kind === "timeout" && load !== undefined) {
    // Its worker was replaced and its cold load outran a wall-clock limit on a starved machine: asked again.
    starved(load);
    benign = await withDeadline(host.call("fuzz_benign", { a: 2, b: 3 }), 15_000 + slackMs);
  }
  if (benign === "unanswered") return "the benign call after the program was not answered";
  if (!benign.ok || (benign.structured as { sum?: number } | undefined)?.sum !== 5) return `the benign call after the program failed: ${JSON.stringify(benign).slice(0, 300)}`;
  return null;
}

/** fast-check shrinks the failing program (given as its example) while the check still fails. */
async function shrink(program: Program, seed: number, check: (p: Program) => Promise<string | null>): Promise<Program> {
  const details = await fc.check(
    fc.asyncProperty(programArbitrary, async (candidate) => (await check(candidate)) === null),
    { seed, numRuns: 1, examples: [[program]], interruptAfterTimeLimit: 60_000 },
  );
  const found = details.counterexample?.[0];
  return found ?? program;
}
