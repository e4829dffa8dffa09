// attempts: JSON.parse of arrays nested 100 000 deep, returned as the result.
// expect: output_too_large
// The parse succeeds inside the isolate; the writer stops at its depth budget.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-json-deep",
  description: "hostile case: crash-json-deep",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 64 },
  run() {
    return JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`) as unknown;
  },
});
