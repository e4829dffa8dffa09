// attempts: return a string far past the output limit.
// expect: output_too_large
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-serializer-huge-output",
  description: "hostile case: serializer-huge-output",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    return { text: "z".repeat(8 * 1024 * 1024) };
  },
});
