/**
 * @module test/runtime/performance.test
 * `performance`, PerformanceObserver and `console` inside a real tool answer
 * as Node 20's do (./performance.cases.ts); the console's counters and
 * timers write their lines, and an observer callback that throws is
 * reported to the console, not thrown into the call.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost } from "../helpers/host.js";
import { answersInNode, answersInTool, differences } from "./run-cases.js";
import { PERFORMANCE_CASES } from "./performance.cases.js";

const tool = (name: string, body: string) => `import { defineTool } from "corral"; import { z } from "zod";
export default defineTool({ name: ${JSON.stringify(name)}, description: "logs", input: z.object({}), effects: [], async run() { ${body} } });`;

describe("runtime: performance, PerformanceObserver and console", { timeout: 120_000 }, () => {
  it("answers every case as Node does", async () => {
    const expected = await answersInNode(PERFORMANCE_CASES);
    await withHost(async (host) => {
      const actual = await answersInTool(host, "runtime_performance", PERFORMANCE_CASES);
      assert.deepEqual(differences(actual, expected), []);
    });
  });

  it("writes the console's counts and timers, and an observer's throw, to the tool's logs", async () => {
    await withHost(async (host) => {
      const body = `console.count(); console.count("a"); console.count("a"); console.countReset("a"); console.count("a"); console.countReset("b");
        console.time("t"); console.time("t"); console.timeLog("t", { n: 1 }); console.timeEnd("t"); console.timeEnd("t");
        await new Promise((resolve) => {
          new PerformanceObserver(() => { setTimeout(resolve, 5); throw new RangeError("observer broke"); }).observe({ type: "mark" });
          new PerformanceObserver(() => console.log("second observer called")).observe({ type: "mark" });
          performance.mark("m");
        });
        return "done";`;
      assert.ok((await host.load({ source: "agent:console-lines", code: tool("console_lines", body) })).ok);
      const result = await host.call("console_lines", {});
      assert.ok(result.ok, JSON.stringify(result));
      const logs = (result.logs ?? []).map((line) => line.replace(/: \d+ms/, ": Nms"));
      assert.deepEqual(logs, [
        "[log] default: 1",
        "[log] a: 1",
        "[log] a: 2",
        "[log] a: 1",
        "[warn] Count for 'b' does not exist",
        "[warn] Timer 't' already exists",
        '[log] t: Nms {"n":1}',
        "[log] t: Nms",
        "[warn] Timer 't' does not exist",
        "[error] Uncaught RangeError: observer broke",
        "[log] second observer called",
      ]);
    });
  });
});
