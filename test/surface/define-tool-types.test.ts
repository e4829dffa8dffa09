/**
 * defineTool checks `run`'s result against `output` when compiled. The
 * `@ts-expect-error` lines are the test: the build's tsc fails if any of them
 * stops being an error. The runtime half checks that the same tools are real.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { defineTool, toolResult } from "../../src/index.js";

const input = z.object({ a: z.number(), b: z.number() });
const output = z.object({ sum: z.number() });

describe("defineTool's types", () => {
  it("accepts a run whose result has the output's type, plain, in a promise, or in toolResult", () => {
    const plain = defineTool({ name: "add", description: "adds", input, output, effects: [], run: ({ a, b }) => ({ sum: a + b }) });
    const later = defineTool({ name: "add_later", description: "adds", input, output, effects: [], run: async ({ a, b }) => ({ sum: a + b }) });
    const channels = defineTool({
      name: "add_channels",
      description: "adds",
      input,
      output,
      effects: [],
      run: ({ a, b }) => toolResult({ text: `${a + b}`, structured: { sum: a + b } }),
    });
    const free = defineTool({ name: "free", description: "no output schema", input, effects: [], run: () => "anything" });
    assert.deepEqual([plain.name, later.name, channels.name, free.name], ["add", "add_later", "add_channels", "free"]);
  });

  it("refuses a run whose result does not match the output schema", () => {
    const wrong = [
      // @ts-expect-error sum must be a number
      defineTool({ name: "a1", description: "d", input, output, effects: [], run: () => ({ sum: "3" }) }),
      // @ts-expect-error a missing key
      defineTool({ name: "a2", description: "d", input, output, effects: [], run: async () => ({}) }),
      // @ts-expect-error structured must match too
      defineTool({ name: "a3", description: "d", input, output, effects: [], run: () => toolResult({ structured: { total: 1 } }) }),
    ];
    assert.equal(wrong.length, 3);
  });
});
