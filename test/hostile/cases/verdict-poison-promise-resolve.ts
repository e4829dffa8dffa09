// attempts: replace Promise.resolve, the Promise species and Promise.prototype.constructor, then
// queue a microtask and answer: the runtime's own promises must not consult them.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-promise-resolve",
  description: "hostile case: poison-promise-resolve",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    Promise.resolve = () => { throw new Error("poisoned resolve"); };
    Object.defineProperty(Promise, Symbol.species, { get() { throw new Error("poisoned species"); } });
    Object.defineProperty(Promise.prototype, "constructor", { get() { throw new Error("poisoned constructor"); } });
    queueMicrotask(() => undefined);
    setTimeout(() => undefined, 1);
    return { answered: true };
  },
});
