// attempts: return an object with a getter that throws while the result is
// being read.
// expect: tool_error
// expect-message: getter exploded
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-getter-throws",
  description: "hostile case: throwing getter in the result",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return {
      fine: 1,
      get bad(): number {
        throw new Error("getter exploded");
      },
    };
  },
});
