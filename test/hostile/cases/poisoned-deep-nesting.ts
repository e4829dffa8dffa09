// attempts: return arrays nested 100 000 deep.
// expect: output_too_large
// A correct host stops at its depth budget instead of overflowing its stack.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-deep-nesting",
  description: "hostile case: deep nesting",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    let value: unknown = [];
    for (let i = 0; i < 100_000; i++) value = [value];
    return value;
  },
});
