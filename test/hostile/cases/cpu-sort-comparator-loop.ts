// attempts: Array.prototype.sort with a comparator that never returns.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-sort-comparator-loop",
  description: "hostile case: loop inside a builtin's callback",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return [3, 1, 2].sort(() => {
      for (;;) {
        // spin inside sort
      }
    });
  },
});
