// attempts: install Symbol.split on Object.prototype and replace String and Array methods, then throw.
// expect: tool_error
// expect-message: split
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-string-split",
  description: "hostile case: poison-string-split",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    (Object.prototype as Record<symbol, unknown>)[Symbol.split] = () => { throw new Error("poisoned split"); };
    String.prototype.slice = () => { throw new Error("poisoned slice"); };
    Array.prototype.join = () => { throw new Error("poisoned join"); };
    Array.prototype.push = () => { throw new Error("poisoned push"); };
    throw new Error("split");
  },
});
