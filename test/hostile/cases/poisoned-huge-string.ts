// attempts: return a 4 MiB flat string, past the 1 MiB output budget.
// expect: output_too_large
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-huge-string",
  description: "hostile case: huge string",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 64 },
  run() {
    return { text: "x".repeat(4 * 1024 * 1024) };
  },
});
