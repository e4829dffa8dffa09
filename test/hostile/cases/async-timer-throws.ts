// attempts: a timer callback that throws while run is still waiting.
// expect: tool_error
// expect-message: thrown from a timer
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-timer-throws",
  description: "hostile case: uncaught throw in a timer",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    setTimeout(() => {
      throw new Error("thrown from a timer");
    }, 5);
    return new Promise((resolve) => setTimeout(() => resolve("not reached"), 800));
  },
});
