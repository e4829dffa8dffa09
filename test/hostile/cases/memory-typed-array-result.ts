// attempts: return a 24 MB typed array (within the tool's 64 MB limit) as
// its result, hoping the host copies or expands it in full.
// expect: output_too_large
// A correct host refuses the result at its 1 MiB output budget.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-typed-array-result",
  description: "hostile case: huge typed array as the result",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 64 },
  run() {
    return new Uint8Array(24 * 1024 * 1024);
  },
});
