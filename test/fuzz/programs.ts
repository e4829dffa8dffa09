/**
 * @module test/fuzz/programs
 * A fast-check generator of hostile tool programs, built from the primitives
 * of the hostile suite (test/hostile/cases): allocation of every kind, loops,
 * promise and timer storms, Proxies and getters in results, thrown
 * non-Errors, deep recursion, typed arrays and resizable buffers, Wasm,
 * regular expressions, Atomics, pollution of built-ins. A program is plain
 * data (so fast-check can shrink it) and `programSource` writes it as one
 * tool module named `fuzz`.
 *
 * ```
 * Program ─ top: Step[]        run at the module's top level (the load)
 *         ─ run: Step[]        run by the tool, in order, each maybe in try/catch
 *         ─ async              run is an async function (awaits between steps)
 *         ─ answer: Answer     what run returns (or throws)
 * ```
 */
import fc from "fast-check";

/** One hostile act. `n` is its size knob; each kind reads it its own way. */
export type Step = { kind: StepKind; n: number; guarded: boolean };

export const STEP_KINDS = [
  "array_growth",
  "string_doubling",
  "arraybuffer",
  "resizable_buffer",
  "typed_array",
  "map_growth",
  "busy_loop",
  "infinite_loop",
  "microtask_storm",
  "timer_storm",
  "interval_storm",
  "never_settles",
  "deep_recursion",
  "wasm_memory_grow",
  "wasm_loop",
  "catastrophic_regex",
  "atomics_wait",
  "typed_array_sort",
  "pollute_builtins",
  "throw_non_error",
  "detached_rejection",
] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const ANSWER_KINDS = [
  "plain",
  "proxy_throwing",
  "getter_loop",
  "huge_string",
  "deep_nesting",
  "cycle",
  "bigint_symbol_function",
  "thenable_never",
  "throw_proxy",
  "throw_primitive",
  "typed_array",
] as const;
export type AnswerKind = (typeof ANSWER_KINDS)[number];

export type Program = { top: Step[]; run: Step[]; async: boolean; answer: AnswerKind; timeoutMs: number; memoryMb: number };

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom(...STEP_KINDS),
  // Small sizes most of the time, and now and then one that crosses a limit.
  n: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 8 }) }, { weight: 1, arbitrary: fc.integer({ min: 9, max: 30 }) }),
  guarded: fc.boolean(),
});

export const programArbitrary: fc.Arbitrary<Program> = fc.record({
  // The top level runs once per fresh isolate (and at load): mostly empty.
  top: fc.array(step, { maxLength: 1 }),
  run: fc.array(step, { minLength: 1, maxLength: 4 }),
  async: fc.boolean(),
  answer: fc.constantFrom(...ANSWER_KINDS),
  timeoutMs: fc.constantFrom(50, 100, 200),
  memoryMb: fc.constantFrom(16, 32, 64),
});

/** The code of one step; `n` scales it (2^n for sizes). */
function stepCode(s: Step, inAsync: boolean): string {
  const n = s.n;
  const size = 2 ** Math.min(n, 30);
  switch (s.kind) {
    case "array_growth":
      return `{ const a = []; for (let i = 0; i < ${size}; i++) a.push(new Array(64).fill(i)); sink.push(a.length); }`;
    case "string_doubling":
      return `{ let s = "xy"; for (let i = 0; i < ${n + 10}; i++) s += s; sink.push(s.length); }`;
    case "arraybuffer":
      return `{ const b = new ArrayBuffer(${Math.min(size * 1024, 2 ** 31)}); new Uint8Array(b).fill(1); sink.push(b.byteLength); }`;
    case "resizable_buffer":
      return `{ const b = new ArrayBuffer(8, { maxByteLength: ${Math.min(size * 4096, 2 ** 31)} }); for (let i = 1; i <= 8; i++) b.resize(Math.floor(b.maxByteLength * i / 8)); new Uint8Array(b).fill(2); sink.push(b.byteLength); }`;
    case "typed_array":
      return `{ const t = new Float64Array(${Math.min(size * 512, 2 ** 28)}); t.fill(Math.PI); sink.push(t.length); }`;
    case "map_growth":
      return `{ const m = new Map(); for (let i = 0; i < ${size * 64}; i++) m.set("k" + i, { i }); sink.push(m.size); }`;
    case "busy_loop":
      return `{ let x = 0; for (let i = 0; i < ${size * 1000}; i++) x = (x + i) % 7; sink.push(x); }`;
    case "infinite_loop":
      return `{ for (;;) {} }`;
    case "microtask_storm":
      return inAsync
        ? `{ let c = 0; const go = () => { if (c++ < ${size * 100}) queueMicrotask(go); }; go(); await Promise.resolve(); sink.push(c); }`
        : `{ let c = 0; const go = () => { if (c++ < ${size * 100}) Promise.resolve().then(go); }; go(); sink.push(c); }`;
    case "timer_storm":
      return `{ for (let i = 0; i < ${Math.min(size * 8, 5000)}; i++) setTimeout(() => sink.push(i), i % 5); }`;
    case "interval_storm":
      return `{ for (let i = 0; i < ${Math.min(n * 20 + 1, 500)}; i++) setInterval(() => { sink.push(i); if (sink.length > 1e5) sink.length = 0; }, 0); }`;
    case "never_settles":
      return inAsync ? `{ await new Promise(() => {}); }` : `{ new Promise(() => {}); }`;
    case "deep_recursion":
      return `{ const f = (d) => (d <= 0 ? 0 : f(d - 1) + 1); sink.push(f(${size * 100})); }`;
    case "wasm_memory_grow":
      return `{ const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (let i = 0; i < ${n * 8 + 1}; i++) m.grow(64); new Uint8Array(m.buffer).fill(3); sink.push(m.buffer.byteLength); }`;
    case "wasm_loop":
      // (module (func (export "spin") (loop (br 0))))
      return `{ const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,8,1,4,115,112,105,110,0,0,10,9,1,7,0,3,64,12,0,11,11]); const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes)); ${n > 4 ? "inst.exports.spin();" : "sink.push(typeof inst.exports.spin);"} }`;
    case "catastrophic_regex":
      return `{ sink.push(/^(a+)+$/.test("a".repeat(${n + 10}) + "b")); }`;
    case "atomics_wait":
      return `{ const i32 = new Int32Array(new SharedArrayBuffer(4)); sink.push(Atomics.wait(i32, 0, 0, ${n * 20})); }`;
    case "typed_array_sort":
      return `{ const t = new Float64Array(${Math.min(size * 256, 2 ** 26)}).map((_, i) => (i * 7919) % 1000); t.sort(); sink.push(t[0]); }`;
    case "pollute_builtins":
      return `{ Object.prototype.polluted = ${n}; Array.prototype.push = function () { return ${n}; }; JSON.stringify = () => "{}"; globalThis.leftBehind = (globalThis.leftBehind ?? 0) + 1; }`;
    case "throw_non_error":
      return [`{ throw ${JSON.stringify(n)}; }`, "{ throw null; }", "{ throw undefined; }", "{ throw { message: { toString() { for (;;) {} } } }; }", "{ throw Symbol('s'); }"][n % 5] as string;
    case "detached_rejection":
      return `{ Promise.reject(new Error("detached ${n}")); (async () => { throw ${n}; })(); }`;
  }
}

function guard(code: string, guarded: boolean): string {
  return guarded ? `try ${code} catch (caught) { sink.push(String(typeof caught)); }` : code;
}

function answerCode(answer: AnswerKind): string {
  switch (answer) {
    case "plain":
      return `return { steps: sink.length };`;
    case "proxy_throwing":
      return `return new Proxy({}, { get() { throw new Error("trap"); }, ownKeys() { throw 1; } });`;
    case "getter_loop":
      return `return { get value() { for (;;) {} } };`;
    case "huge_string": {
      return `{ let s = "ab"; for (let i = 0; i < 26; i++) s += s; return s; }`;
    }
    case "deep_nesting":
      return `{ let v = []; for (let i = 0; i < 100000; i++) v = [v]; return v; }`;
    case "cycle":
      return `{ const a = { b: {} }; a.b.a = a; return a; }`;
    case "bigint_symbol_function":
      return `return { big: 10n ** 30n, sym: Symbol("s"), fn() {}, map: new Map([[1, 2]]) };`;
    case "thenable_never":
      return `return { then() {} };`;
    case "throw_proxy":
      return `throw new Proxy(new Error("p"), { get(t, k) { if (k === "message" || k === "stack") for (;;) {} return Reflect.get(t, k); } });`;
    case "throw_primitive":
      return `throw 42;`;
    case "typed_array":
      return `return new Uint8Array(1 << 20);`;
  }
}

/** The tool module a program makes: one tool named `fuzz`. */
export function programSource(program: Program): string {
  const top = program.top.map((s) => guard(stepCode(s, false), true)).join("\n");
  const run = program.run.map((s) => guard(stepCode(s, program.async), s.guarded)).join("\n    ");
  return `import { defineTool } from "corral";
import { z } from "zod";
const sink = [];
${top}
export default defineTool({
  name: "fuzz",
  description: "a generated hostile program",
  input: z.object({}).passthrough(),
  effects: [],
  limits: { timeoutMs: ${program.timeoutMs}, memoryMb: ${program.memoryMb} },
  ${program.async ? "async " : ""}run() {
    ${run}
    ${answerCode(program.answer)}
  },
});
`;
}
