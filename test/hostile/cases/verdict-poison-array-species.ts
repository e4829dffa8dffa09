// attempts: poison the array species and Array.prototype.constructor, then throw an Error with a stack.
// expect: tool_error
// expect-message: species
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-array-species",
  description: "hostile case: poison-array-species",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    Object.defineProperty(Array, Symbol.species, { get() { throw new Error("poisoned species"); } });
    Object.defineProperty(Array.prototype, "constructor", { get() { throw new Error("poisoned constructor"); } });
    throw new Error("species");
  },
});
