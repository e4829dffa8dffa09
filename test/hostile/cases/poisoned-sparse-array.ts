// attempts: return a sparse array of length 2^32 - 1 (nothing stored).
// expect: output_too_large
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-sparse-array",
  description: "hostile case: enormous sparse array",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    return sparse;
  },
});
