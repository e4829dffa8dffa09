// attempts: replace Map, Set and WeakSet prototype methods, then answer twice.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-poison-collections",
  description: "hostile case: poison-collections",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    Map.prototype.get = () => undefined;
    Map.prototype.set = () => { throw new Error("poisoned set"); };
    Set.prototype.has = () => true;
    WeakSet.prototype.has = () => true;
    return { fine: true };
  },
});
