// attempts: return a thenable whose then never calls back, so awaiting the
// result waits for ever.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-thenable-never",
  description: "hostile case: then() that never calls back",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return { then() {} };
  },
});
