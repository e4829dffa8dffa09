/**
 * @module test/web/wpt-runner.test
 * The WPT runner (scripts/wpt/) on a small checkout made here: WPT itself
 * is not part of corral, so a stand-in testharness.js with the same shape
 * (test, promise_test, the result and completion callbacks, timeout) drives
 * it. Checks what the runner must get right for its figures to mean
 * anything: META scripts and variants, a classic script's top-level const
 * seen by the test, resource files fetched by both sides, the same results
 * in Node and in a corral tool, and a test that never ends answered by the
 * harness's timeout, not by a strike.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";

type Test = { id: string; path: string; search: string; meta: { timeout: string } };
type Answer = { tests: { name: string; status: number; message: string | null }[]; requested: string[]; errors: string[] };
type Runner = { host: { close(): Promise<void> }; run(input: unknown, resources: string[]): Promise<{ ok: boolean; structured?: unknown }> };

const load = async <T>(path: string): Promise<T> => (await import(new URL(`../../../scripts/wpt/${path}`, import.meta.url).href)) as T;

const HARNESS = `(function () {
  // As testharness.js in a shell: the tests are all defined once the scripts' synchronous run is over (a microtask later).
  var tests = [], results = [], done = [], pending = 0, finished = false, loaded = false;
  Promise.resolve().then(function () { loaded = true; if (pending === 0) finish(); });
  function report(t) { results.forEach(function (f) { f(t); }); }
  function finish() { if (finished) return; finished = true; done.forEach(function (f) { f(tests, { status: 0, message: null }); }); }
  function settle(t, status, message) { if (t.status !== undefined) return; t.status = status; t.message = message; report(t); if (--pending === 0 && loaded) finish(); }
  self.test = function (fn, name) { var t = { name: name }; tests.push(t); pending++; try { fn(); settle(t, 0, null); } catch (e) { settle(t, 1, String(e)); } };
  self.promise_test = function (fn, name) { var t = { name: name }; tests.push(t); pending++; Promise.resolve().then(fn).then(function () { settle(t, 0, null); }, function (e) { settle(t, 1, String(e)); }); };
  self.add_result_callback = function (f) { results.push(f); };
  self.add_completion_callback = function (f) { done.push(f); };
  self.timeout = function () { tests.forEach(function (t) { if (t.status === undefined) { t.status = 2; t.message = "Test timed out"; } }); finish(); };
})();`;

function checkout(root: string): void {
  const file = (path: string, text: string) => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  file("resources/testharness.js", HARNESS);
  file("area/resources/data.json", JSON.stringify({ answer: 42 }));
  file("area/resources/helper.js", "const HELPER = (x) => x * 2;\n");
  file(
    "area/shared.any.js",
    `// META: script=resources/helper.js
// META: variant=?one
// META: variant=?two
test(() => { if (HELPER(21) !== 42) throw new Error("helper"); }, "a META script's const is seen");
test(() => { if (location.search !== "?one" && location.search !== "?two") throw new Error(location.search); }, "the variant is location.search");
promise_test(async () => { const data = await (await fetch("resources/data.json")).json(); if (data.answer !== 42) throw new Error("data"); }, "a resource file is fetched");
test(() => { throw new Error("expected"); }, "a failure is a failure");
`,
  );
  file("area/never.any.js", `promise_test(() => new Promise(() => {}), "never settles");\n`);
}

describe("the WPT runner", { timeout: 120_000 }, () => {
  it("runs META scripts, variants and resources the same in Node and in a tool, and times out a test that never ends", async () => {
    const dir = tempDir("corral-wpt-");
    try {
      checkout(dir.path);
      const { listTests, scriptsOf } = await load<{ listTests(wpt: string, areas: string[]): Test[]; scriptsOf(wpt: string, test: Test): unknown[] }>("tests.mjs");
      const { runInNode } = await load<{ runInNode(wpt: string, input: unknown): Promise<Answer> }>("in-node.mjs");
      const { corralRunner } = await load<{ corralRunner(wpt: string, options: { workers: number }): Promise<Runner> }>("in-corral.mjs");
      const tests = listTests(dir.path, ["area"]);
      assert.deepEqual(tests.map((t) => t.id), ["area/never.any.js", "area/shared.any.js?one", "area/shared.any.js?two"]);
      const runner = await corralRunner(dir.path, { workers: 1 });
      try {
        for (const test of tests) {
          const input = { path: test.path, search: test.search, timeoutMs: 1_000, scripts: scriptsOf(dir.path, test) };
          const node = await runInNode(dir.path, input);
          const result = await runner.run(input, node.requested);
          assert.ok(result.ok, `${test.id}: ${JSON.stringify(result)}`);
          const tool = result.structured as Answer;
          const statuses = (answer: Answer) => answer.tests.map((t) => `${t.name}: ${t.status}`);
          assert.deepEqual(statuses(tool), statuses(node), test.id);
          assert.deepEqual(tool.errors, []);
          if (test.path === "area/never.any.js") assert.deepEqual(statuses(tool), ["never settles: 2"]);
          else {
            assert.deepEqual(statuses(tool), ["a META script's const is seen: 0", "the variant is location.search: 0", "a resource file is fetched: 0", "a failure is a failure: 1"]);
            assert.deepEqual(node.requested, ["area/resources/data.json"]);
          }
        }
      } finally {
        await runner.host.close();
      }
    } finally {
      dir.remove();
    }
  });
});
