// attempts: poison Promise.prototype.constructor, then answer with its own promise, whose
// resolution reads the poisoned getter: it breaks its own answer, nothing of corral's.
// expect: tool_error
// expect-message: poisoned constructor
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-own-promise",
  description: "hostile case: its own promise, poisoned",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    Object.defineProperty(Promise.prototype, "constructor", { configurable: true, get() { throw new Error("poisoned constructor"); } });
    return new Promise((resolve) => setTimeout(() => resolve({ late: true }), 5));
  },
});
