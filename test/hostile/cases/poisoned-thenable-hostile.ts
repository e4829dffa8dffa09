// attempts: return a thenable that calls back with a hostile value: an object
// whose every property getter throws, nested in a thenable again.
// expect: tool_error
// expect-message: resolved value exploded
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-thenable-hostile",
  description: "hostile case: then() resolving to a hostile value",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const hostile = {
      get value(): never {
        throw new Error("resolved value exploded");
      },
    };
    return {
      then(resolve: (v: unknown) => void) {
        resolve({ then: (inner: (v: unknown) => void) => inner(hostile) });
      },
    };
  },
});
