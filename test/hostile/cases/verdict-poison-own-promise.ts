// attempts: poison Promise.prototype.constructor, then answer with its own promise, whose
// resolution would read the poisoned getter: the runtime follows a real promise with its captured
// then (after making the promise's own constructor undefined), so nothing the tool replaced is
// consulted and the answer arrives (issue 27: settled with captured intrinsics only).
// expect: ok
// expect-output: {"late":true}
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
