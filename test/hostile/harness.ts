/**
 * @module test/hostile/harness
 * Runs the hostile cases in test/hostile/cases against a real host. Each case
 * is a tool file whose header comment says what it attempts and what a
 * correct host answers; the runner reads the expectation from that header, so
 * the header and the assertion cannot drift apart:
 *
 * ```
 * // attempts: <what the tool tries>            (required)
 * // expect: <outcome kind of the call>         (or)
 * //   kind|kind: either, only where two limits truly race (native work that
 * //   ignores termination and grows memory outside the heap: which watch
 * //   fires first depends on the machine's speed; both are strikes on the
 * //   case's own source)
 * // expect-load: <error kind of host.load>     (the module must not load)
 * // expect-output: <exact output text>         (optional, for ok)
 * // expect-message: <text the error message contains>   (optional)
 * // input: <JSON input for the call>           (optional, default {})
 * // repeat: <n>                                (optional: call n times, each must match)
 * ```
 *
 * Every case runs in its category's suite; none may be set aside.
 *
 * Each category file shares one host (two workers) across its cases. After
 * every case the runner asserts the host is alive, a benign tool still
 * answers on both workers, and no more worker processes are alive than the
 * host may have.
 */
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HOST_DEFAULTS, OUTCOME_KINDS, ToolResult, outcomeOf, type Host, type HostOptions } from "../../src/index.js";
import { sharedHost as openSharedHost, type SharedHost } from "./shared-host.js";

export type { SharedHost };

/** The case files live in the source tree; tests run from dist/test/hostile. */
export const CASES_DIR = fileURLToPath(new URL("../../../test/hostile/cases/", import.meta.url));

export const CATEGORIES = ["escape", "cpu", "memory", "async", "poisoned", "contamination", "crash", "verdict"] as const;
export type Category = (typeof CATEGORIES)[number];

export type HostileCase = {
  /** File name without `.ts`; also the tool's name. */
  name: string;
  category: Category;
  path: string;
  attempts: string;
  stage: "call" | "load";
  /** As the header says it: one kind, or `a|b` where two limits race. */
  kind: string;
  /** The kinds a correct host may answer. */
  kinds: string[];
  output?: string;
  message?: string;
  input: unknown;
  /** How many calls in a row must each give the expected answer. */
  repeat: number;
};

/** Reads the comment block at the top of a case file. */
export function parseCaseHeader(path: string, text: string): Omit<HostileCase, "category"> {
  const name = path.slice(path.lastIndexOf("/") + 1).replace(/\.ts$/, "");
  const header: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    header.push(line.slice(2).trim());
  }
  const field = (key: string): string | undefined => {
    const found = header.filter((line) => line.startsWith(`${key}:`));
    assert.ok(found.length <= 1, `${name}: the header has ${found.length} "${key}:" lines`);
    return found[0]?.slice(key.length + 1).trim();
  };
  const attemptsStart = header.findIndex((line) => line.startsWith("attempts:"));
  assert.ok(attemptsStart >= 0, `${name}: the header must open with "// attempts: ..."`);
  const attemptLines = [header[attemptsStart]!.slice("attempts:".length).trim()];
  for (const line of header.slice(attemptsStart + 1)) {
    if (/^[a-z-]+:/.test(line)) break;
    attemptLines.push(line);
  }
  const call = field("expect");
  const load = field("expect-load");
  assert.ok((call === undefined) !== (load === undefined), `${name}: give exactly one of "expect:" and "expect-load:"`);
  const kind = (call ?? load)!;
  const kinds = kind.split("|").map((one) => one.trim());
  for (const one of kinds) assert.ok((OUTCOME_KINDS as readonly string[]).includes(one), `${name}: "${one}" is not an outcome kind`);
  assert.ok(kinds.length === 1 || (kinds.length === 2 && call !== undefined && kinds.every((one) => one === "memory" || one === "timeout")), `${name}: only a call may race, and only memory against timeout`);
  const inputText = field("input");
  const repeatText = field("repeat");
  const repeat = repeatText === undefined ? 1 : Number(repeatText);
  assert.ok(Number.isInteger(repeat) && repeat >= 1 && repeat <= 20, `${name}: repeat must be 1-20`);
  const result: Omit<HostileCase, "category"> = {
    name,
    path,
    attempts: attemptLines.join(" "),
    stage: call !== undefined ? "call" : "load",
    kind,
    kinds,
    input: inputText === undefined ? {} : (JSON.parse(inputText) as unknown),
    repeat,
  };
  const output = field("expect-output");
  if (output !== undefined) result.output = output;
  const message = field("expect-message");
  if (message !== undefined) result.message = message;
  if (field("known-failure") !== undefined) throw new Error(`${path}: a case may not be set aside as a known failure; fix corral instead`);
  return result;
}

/** Every case of `category` (files named `<category>-*.ts`), sorted by name. */
export function listCases(category: Category): HostileCase[] {
  return readdirSync(CASES_DIR)
    .filter((file) => file.startsWith(`${category}-`) && file.endsWith(".ts"))
    .sort()
    .map((file) => {
      const path = join(CASES_DIR, file);
      return { ...parseCaseHeader(path, readFileSync(path, "utf8")), category };
    });
}

export function caseFile(name: string): string {
  return join(CASES_DIR, name);
}

/** The options of every hostile host: two workers, small load limits. */
export const HOSTILE_HOST_OPTIONS: HostOptions = {
  workers: 2,
  loadTimeoutMs: 1500,
  loadMemoryMb: 64,
  // Quarantine is not what these suites test: a case called several times
  // (repeat) must keep reaching the sandbox.
  ledger: { store: false, policy: { strikes: 1000 } },
};

/** Worker processes a healthy host may have alive: its workers and any spares. */
export function allowedWorkerProcesses(options: HostOptions): number {
  const spares = (HOST_DEFAULTS as Record<string, unknown>).spareWorkers;
  return (options.workers ?? 1) + (typeof spares === "number" ? spares : 0);
}

/** One host per category file, with the hostile options unless told otherwise. */
export function sharedHost(options: HostOptions = HOSTILE_HOST_OPTIONS): SharedHost {
  return openSharedHost(options);
}

export const BENIGN_TOOL = "benign";

/** Loads the benign tool and checks it answers on both workers. */
export async function loadBenign(host: Host): Promise<void> {
  const loaded = await host.load({ path: caseFile("_benign-tool.ts") });
  assert.ok(loaded.ok, `the benign tool failed to load: ${JSON.stringify(loaded)}`);
  await assertBenignAnswers(host);
}

/**
 * Two benign calls at once, so that both workers answer one (a worker that
 * replaced a killed one answers too): the host still serves ordinary calls.
 */
export async function assertBenignAnswers(host: Host): Promise<void> {
  const results = await Promise.all([host.call(BENIGN_TOOL, { a: 2, b: 3 }), host.call(BENIGN_TOOL, { a: 4, b: 5 })]);
  for (const [index, result] of results.entries()) {
    assert.equal(outcomeOf(result), "ok", `the benign tool failed after the case: ${JSON.stringify(result)}`);
    assert.deepEqual(result.ok && result.structured, { sum: index === 0 ? 5 : 9 });
  }
}

async function assertNoWorkerLeak(shared: SharedHost): Promise<void> {
  const allowed = allowedWorkerProcesses(shared.options);
  const deadline = Date.now() + 3_000;
  let alive = shared.workerPids();
  while (alive.length > allowed && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = shared.workerPids();
  }
  assert.ok(alive.length <= allowed, `${alive.length} worker processes are alive, more than the host's ${allowed}: ${alive.join(", ")}`);
}

function describeExpectation(c: HostileCase): string {
  return c.stage === "load" ? `load fails: ${c.kind}` : c.kind;
}

/** Loads and calls one case, asserting its exact outcome; answers the call's result. */
export async function runCase(shared: SharedHost, c: HostileCase, t?: TestContext): Promise<ToolResult | undefined> {
  const host = shared.host;
  const started = performance.now();
  const loaded = await host.load({ path: c.path });
  let result: ToolResult | undefined;
  if (c.stage === "load") {
    assert.equal(loaded.ok, false, `${c.name} loaded, but a correct host refuses it: ${JSON.stringify(loaded).slice(0, 500)}`);
    assert.ok(!loaded.ok);
    assert.equal(loaded.error.kind, c.kind, `${c.name}: wrong load error kind: ${JSON.stringify(loaded.error).slice(0, 800)}`);
    assert.equal(typeof loaded.error.message, "string");
    if (c.message !== undefined) assert.ok(loaded.error.message.includes(c.message), `load message: ${loaded.error.message.slice(0, 500)}`);
  } else {
    assert.ok(loaded.ok, `${c.name} failed to load: ${JSON.stringify(loaded).slice(0, 800)}`);
    assert.ok(
      loaded.tools.some((tool) => tool.name === c.name),
      `${c.name}: the module must define a tool named after its file`,
    );
    for (let attempt = 1; attempt <= c.repeat; attempt++) {
      result = await host.call(c.name, c.input);
      const shown = JSON.stringify(result).slice(0, 1200);
      const which = c.repeat > 1 ? ` (call ${attempt} of ${c.repeat})` : "";
      assert.ok(c.kinds.includes(outcomeOf(result)), `${c.name}: wrong outcome${which}, expected ${c.kind}: ${shown}`);
    }
    assert.ok(result !== undefined);
    const shown = JSON.stringify(result).slice(0, 1200);
    // Whatever the tool did, the result is a well-formed ToolResult.
    assert.ok(ToolResult.safeParse(result).success, `${c.name}: malformed result: ${shown}`);
    if (result.ok) {
      if (c.output !== undefined) assert.equal(result.output, c.output, `${c.name}: wrong output`);
    } else {
      assert.equal(typeof result.error.message, "string");
      assert.ok(result.error.message.length > 0 && result.error.message.length <= 4_100, `${c.name}: message length ${result.error.message.length}`);
      if (c.message !== undefined) assert.ok(result.error.message.includes(c.message), `${c.name}: message was: ${result.error.message.slice(0, 500)}`);
    }
  }
  const elapsed = performance.now() - started;
  assert.equal(host.alive, true, "the host died");
  await assertBenignAnswers(host);
  await assertNoWorkerLeak(shared);
  t?.diagnostic(`${c.name}: ${result === undefined ? describeExpectation(c) : outcomeOf(result)} in ${Math.round(elapsed)} ms`);
  return result;
}

export type CategoryHooks = {
  /** Runs once after the benign tool is loaded. */
  setup?: (shared: SharedHost) => Promise<void>;
  /** Runs after each case passed its own checks. */
  afterCase?: (shared: SharedHost, c: HostileCase, result: ToolResult | undefined) => Promise<void>;
  /** Registers more tests inside the category's describe block, on the same host. */
  moreTests?: (shared: SharedHost) => void;
};

/** One describe block per category: every case, in file order, on one shared host. */
export function describeCategory(category: Category, hooks: CategoryHooks = {}): void {
  const cases = listCases(category);
  const running = cases;
  describe(`hostile ${category} cases`, { timeout: 180_000 }, () => {
    const shared = sharedHost();
    before(async () => {
      await shared.start();
      await loadBenign(shared.host);
      await hooks.setup?.(shared);
    });
    after(() => shared.stop());

    it(`has cases, each with a well-formed header (${cases.length} files, ${cases.length - running.length} known failures)`, () => {
      assert.ok(cases.length >= 5, `only ${cases.length} ${category} cases`);
      for (const c of cases) assert.ok(c.attempts.length > 10, `${c.name}: say what the case attempts`);
    });

    for (const c of running) {
      it(`${c.name} → ${describeExpectation(c)}`, async (t) => {
        const result = await runCase(shared, c, t);
        await hooks.afterCase?.(shared, c, result);
      });
    }
    hooks.moreTests?.(shared);
  });
}
