// attempts: replace Object.freeze, Object.keys and Object.create.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-object-freeze",
  description: "hostile case: poison-object-freeze",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    Object.freeze = () => { throw new Error("poisoned freeze"); };
    Object.keys = () => ["x"];
    Object.create = () => { throw new Error("poisoned create"); };
    return { a: 1 };
  },
});
