// attempts: return a Proxy whose traps throw as soon as the result is read.
// expect: tool_error
// expect-message: ownKeys trap
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-proxy-throwing",
  description: "hostile case: throwing Proxy traps",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return {
      wrapper: new Proxy(
        {},
        {
          ownKeys() {
            throw new Error("ownKeys trap");
          },
        },
      ),
    };
  },
});
