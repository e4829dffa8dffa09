/**
 * @module test/runtime/globals.test
 * WinterTC's small globals inside a real tool answer as the standards say
 * (./globals.cases.ts): self, navigator, CustomEvent, ErrorEvent and
 * reportError, DOMException's constants, AbortSignal's event order, and
 * TextDecoder's labels and legacy encodings (decoded by the worker's Node).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost } from "../helpers/host.js";
import { answersInTool, differences, type Answer } from "./run-cases.js";
import { GLOBAL_CASES } from "./globals.cases.js";

const bodies = (table: Record<string, { body: string }>) => Object.fromEntries(Object.entries(table).map(([name, c]) => [name, c.body]));
const expected = (table: Record<string, { expect: Answer }>) => Object.fromEntries(Object.entries(table).map(([name, c]) => [name, c.expect]));

describe("runtime: WinterTC's small globals", { timeout: 120_000 }, () => {
  it("answers every case as the standards say", async () => {
    await withHost(async (host) => {
      const actual = await answersInTool(host, "runtime_globals", bodies(GLOBAL_CASES));
      assert.deepEqual(differences(actual, expected(GLOBAL_CASES)), []);
    });
  });

  it("writes an error no listener cancelled to the tool's console", async () => {
    await withHost(async (host) => {
      const code = `import { defineTool } from "corral"; import { z } from "zod";
export default defineTool({ name: "reporter", description: "reports", input: z.object({}), effects: [], run() { reportError(new RangeError("lost")); return "ok"; } });`;
      assert.ok((await host.load({ source: "agent:reporter", code })).ok);
      const result = await host.call("reporter", {});
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.logs, ["[error] Uncaught RangeError: lost"]);
    });
  });
});
