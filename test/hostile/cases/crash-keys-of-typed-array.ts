// attempts: Object.keys of a 20-million-element typed array: 20 million index
// strings made natively in one call.
// expect: memory|timeout
// The index strings grow the worker faster than the time limit runs out on
// a quiet machine, slower on a loaded one: the host's memory watch or its
// watchdog stops it, a strike on this case's own source either way.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-keys-of-typed-array",
  description: "hostile case: crash-keys-of-typed-array",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return Object.keys(new Uint8Array(20_000_000)).length;
  },
});
