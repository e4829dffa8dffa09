/**
 * @module test/runtime/fixes.test
 * structuredClone, Headers, timers, performance and the compression streams
 * inside a real tool answer as the standards say (./fixes.cases.ts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost } from "../helpers/host.js";
import { answersInTool, differences, type Answer } from "./run-cases.js";
import { FIX_CASES } from "./fixes.cases.js";

const bodies = Object.fromEntries(Object.entries(FIX_CASES).map(([name, c]) => [name, c.body]));
const expected: Record<string, Answer> = Object.fromEntries(Object.entries(FIX_CASES).map(([name, c]) => [name, c.expect]));

describe("runtime: clone, headers, timers, performance, compression", { timeout: 120_000 }, () => {
  it("answers every case as the standards say", async () => {
    await withHost(async (host) => {
      const actual = await answersInTool(host, "runtime_fixes", bodies);
      assert.deepEqual(differences(actual, expected), []);
    });
  });
});
