// Not a case: the benign tool every hostile runner loads first and calls
// after each case, to show the host still answers ordinary calls.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "benign",
  description: "adds two numbers",
  input: z.object({ a: z.number().default(2), b: z.number().default(3) }),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run({ a, b }) {
    return { sum: a + b };
  },
});
