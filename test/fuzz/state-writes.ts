/**
 * @module test/fuzz/state-writes
 * The fuzz campaign's generator for concurrent state writes around a
 * source's quota (issue 27, item 8). A program is plain data (fast-check
 * shrinks it): a quota profile, a store (memory, the ledger's SQLite file,
 * PostgreSQL when CORRAL_TEST_POSTGRES_URL is set), one to three writer
 * tools of one source, and a batch of calls, all in flight at once, each a
 * short list of `ctx.state` operations (set a key to a value of some size,
 * delete a key, in order or all at once inside the call) whose sizes sit
 * around what the quota holds. After the batch
 * a reader tool lists what the source kept, and the checks are the rule:
 *
 *  - the source's keys and bytes (key + JSON) never pass `quotaBytes` nor
 *    `maxKeys`;
 *  - every set is answered ok or `too_large` (a key over 512 characters
 *    `refused`), and nothing else; a set is never `too_large` when every
 *    key the batch sets, each at its largest value, fits the quota at once;
 *  - what is kept was written: each key present holds a value some call set
 *    ok; each key set ok and never deleted by any call is present.
 *
 * Program i comes from seed `seed + i`; hosts are kept per (store, quota)
 * and each program writes under a source of its own.
 */
import { join } from "node:path";
import fc from "fast-check";
import { createHost, type Host } from "../../src/index.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";

export type StateOp = { op: "set"; key: number; chars: number } | { op: "delete"; key: number };
/** One call: its operations in order, or all at once (`together`: Promise.all inside the tool, so many requests reach the host in one go). */
export type StateCall = { together: boolean; ops: StateOp[] };
export type StateProgram = { store: "memory" | "sqlite" | "postgres"; profile: number; writers: number; calls: StateCall[] };

/** Quota profiles: [quotaBytes, maxKeys]. Values are sized against them (below). */
export const PROFILES: readonly [number, number][] = [
  [2_000, 1_000],
  [50_000, 1_000],
  [1_000_000, 6],
  [10_000, 8],
];

const KEY_CHARS = 4;
const keyName = (key: number) => `k${String(key).padStart(KEY_CHARS - 1, "0")}`;

/** A value's size: mostly a fraction of the quota that lets a few keys fit, sometimes tiny, now and then past the quota alone. */
const charsFor = (quotaBytes: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: Math.floor(quotaBytes / 12), max: Math.floor(quotaBytes / 3) }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: quotaBytes - 10, max: quotaBytes + 10 }) },
  );

/** A batch of calls in flight at once: a few, or a crowd (the races live there: 20 to 40). */
const batch = <T>(call: fc.Arbitrary<T>) => fc.oneof(fc.array(call, { minLength: 2, maxLength: 8 }), fc.array(call, { minLength: 20, maxLength: 40 }));

export const stateProgramArbitrary: fc.Arbitrary<StateProgram> = fc
  .record({
    store: fc.constantFrom<StateProgram["store"]>(...(SKIP_POSTGRES === false ? (["memory", "sqlite", "postgres"] as const) : (["memory", "sqlite"] as const))),
    profile: fc.integer({ min: 0, max: PROFILES.length - 1 }),
    writers: fc.integer({ min: 1, max: 3 }),
  })
  .chain((head) => {
    const [quotaBytes] = PROFILES[head.profile] as [number, number];
    const op: fc.Arbitrary<StateOp> = fc.oneof(
      { weight: 5, arbitrary: fc.record({ op: fc.constant("set" as const), key: fc.integer({ min: 0, max: 24 }), chars: charsFor(quotaBytes) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 24 }) }) },
    );
    return fc.record({ store: fc.constant(head.store), profile: fc.constant(head.profile), writers: fc.constant(head.writers), calls: batch(fc.oneof(fc.record({ together: fc.constant(false), ops: fc.array(op, { minLength: 1, maxLength: 3 }) }), fc.record({ together: fc.constant(true), ops: fc.array(op, { minLength: 2, maxLength: 16 }) }))) });
  });

/** One source's module: `writer_0..n` (state_write) run a call's operations in order; `reader` lists what is kept. */
export function stateModule(writers: number): string {
  const writer = (i: number) => `defineTool({ name: "writer_${i}", description: "writes", effects: ["state_write"],
  input: z.object({ together: z.boolean(), ops: z.array(z.object({ op: z.string(), key: z.string(), chars: z.number().optional() })) }),
  async run({ together, ops }, ctx) {
    const one = async (o) => {
      try {
        if (o.op === "set") await ctx.state.set(o.key, "x".repeat(o.chars));
        else await ctx.state.delete(o.key);
        return "ok";
      } catch (error) { return String(error.code); }
    };
    if (together) return { out: await Promise.all(ops.map(one)) };
    const out = [];
    for (const o of ops) out.push(await one(o));
    return { out };
  } })`;
  return `import { defineTool } from "corral"; import { z } from "zod";
export default [${Array.from({ length: writers }, (_, i) => writer(i)).join(",\n")},
defineTool({ name: "reader", description: "lists", effects: ["read"], input: z.object({}),
  async run(_input, ctx) { const keys = await ctx.state.list(""); const kept = {}; for (const k of keys) kept[k] = await ctx.state.get(k); return { kept }; } })];`;
}

export type StateVerdict = { ok: true; kept: number; refused: number } | { ok: false; reason: string };

/** Checks one batch's answers and what the source kept against the rule above. */
export function checkStateRun(program: StateProgram, answers: string[][], kept: Record<string, unknown>): StateVerdict {
  const [quotaBytes, maxKeys] = PROFILES[program.profile] as [number, number];
  const keys = Object.keys(kept);
  let bytes = 0;
  for (const key of keys) bytes += Buffer.byteLength(key) + Buffer.byteLength(JSON.stringify(kept[key]));
  if (bytes > quotaBytes) return { ok: false, reason: `the source keeps ${bytes} bytes, past its quota of ${quotaBytes}` };
  if (keys.length > maxKeys) return { ok: false, reason: `the source keeps ${keys.length} keys, past its limit of ${maxKeys}` };
  const setOk = new Map<string, Set<number>>();
  const deleted = new Set<string>();
  const largest = new Map<string, number>();
  let refused = 0;
  for (const [c, { ops }] of program.calls.entries()) {
    for (const [o, op] of ops.entries()) {
      const answer = answers[c]?.[o];
      const key = keyName(op.key);
      if (op.op === "delete") {
        deleted.add(key);
        if (answer !== "ok") return { ok: false, reason: `a delete of ${key} answered ${answer}` };
        continue;
      }
      largest.set(key, Math.max(largest.get(key) ?? 0, op.chars));
      if (answer === "ok") setOk.set(key, (setOk.get(key) ?? new Set()).add(op.chars));
      else if (answer === "too_large") refused++;
      else return { ok: false, reason: `a set of ${key} (${op.chars} characters) answered ${answer}` };
    }
  }
  let worst = 0;
  for (const [key, chars] of largest) worst += key.length + chars + 2;
  if (refused > 0 && worst <= quotaBytes && largest.size <= maxKeys) return { ok: false, reason: `${refused} sets refused too_large where every key at its largest (${worst} bytes, ${largest.size} keys) fits` };
  for (const key of keys) {
    const value = kept[key];
    if (typeof value !== "string" || !setOk.get(key)?.has(value.length)) return { ok: false, reason: `${key} holds a value no call set ok` };
  }
  for (const key of setOk.keys()) if (!deleted.has(key) && !(key in kept)) return { ok: false, reason: `${key} was set ok, never deleted, and is gone` };
  return { ok: true, kept: keys.length, refused };
}

/** Hosts kept per (store, profile) for a campaign, PostgreSQL ones in a schema of the campaign's own; `close` ends them all and drops it. */
export function stateHosts(dir: string): { host(program: StateProgram): Host; close(): Promise<void> } {
  const hosts = new Map<string, Host>();
  const schemas = SKIP_POSTGRES === false ? testSchemas("fuzz_state") : undefined;
  let schema: string | undefined;
  return {
    host(program) {
      const id = `${program.store}:${program.profile}`;
      let host = hosts.get(id);
      if (host === undefined) {
        const [quotaBytes, maxKeys] = PROFILES[program.profile] as [number, number];
        const store = program.store === "memory" ? false : program.store === "sqlite" ? join(dir, `state-${program.profile}.db`) : `${postgresUrl()}${postgresUrl().includes("?") ? "&" : "?"}schema=${(schema ??= schemas?.next())}`;
        host = createHost({ workers: 2, cacheDir: join(dir, "cache"), ledger: { store }, effects: { agent: { read: "allow", state_write: "allow" } }, capabilities: { state: { quotaBytes, maxKeys } } });
        hosts.set(id, host);
      }
      return host;
    },
    async close() {
      for (const host of hosts.values()) await host.close();
      hosts.clear();
      await schemas?.dropAll();
    },
  };
}

/** Runs one program under source `agent:state-<seed>`: its calls all at once, then the reader. */
export async function runStateProgram(host: Host, program: StateProgram, seed: number): Promise<StateVerdict> {
  const source = `agent:state-${seed}`;
  const loaded = await host.load({ source, code: stateModule(program.writers).replace(/name: "(writer_\d|reader)"/g, `name: "$1_${seed}"`) });
  if (!loaded.ok) return { ok: false, reason: `the writers did not load: ${loaded.error.kind}: ${loaded.error.message}` };
  const results = await Promise.all(
    program.calls.map(({ together, ops }, c) =>
      host.call(`writer_${c % program.writers}_${seed}`, { together, ops: ops.map((op) => (op.op === "set" ? { op: "set", key: keyName(op.key), chars: op.chars } : { op: "delete", key: keyName(op.key) })) }),
    ),
  );
  const answers: string[][] = [];
  for (const result of results) {
    if (!result.ok) return { ok: false, reason: `a writer's call failed: ${result.error.kind}: ${result.error.message}` };
    answers.push((result.structured as { out: string[] }).out);
  }
  const read = await host.call(`reader_${seed}`, {});
  if (!read.ok) return { ok: false, reason: `the reader failed: ${read.error.kind}: ${read.error.message}` };
  return checkStateRun(program, answers, (read.structured as { kept: Record<string, unknown> }).kept);
}

/** Programs `seed`..`seed + count - 1`; answers each program's verdict with its seed. */
export async function runStateCampaign(options: { count: number; seed: number; dir: string; onResult?: (seed: number, program: StateProgram, verdict: StateVerdict) => void }): Promise<{ seed: number; program: StateProgram; verdict: StateVerdict }[]> {
  const hosts = stateHosts(options.dir);
  const out: { seed: number; program: StateProgram; verdict: StateVerdict }[] = [];
  try {
    for (let i = 0; i < options.count; i++) {
      const seed = options.seed + i;
      const [program] = fc.sample(stateProgramArbitrary, { seed, numRuns: 1 }) as [StateProgram];
      const verdict = await runStateProgram(hosts.host(program), program, seed);
      options.onResult?.(seed, program, verdict);
      out.push({ seed, program, verdict });
    }
  } finally {
    await hosts.close();
  }
  return out;
}
