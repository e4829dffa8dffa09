// attempts: replace Promise.prototype.then, then answer through a promise.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-promise-then",
  description: "hostile case: poison-promise-then",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    const then = Promise.prototype.then;
    const p = Promise.resolve({ a: 1 });
    Promise.prototype.then = function () { throw new Error("poisoned then"); };
    void then;
    return { b: 2 };
  },
});
