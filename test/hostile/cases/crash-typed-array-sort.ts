// attempts: sort a 4-million-element Float64Array without a comparator: a native
// sort that does not check for termination.
// expect: timeout
// The isolate's own timeout cannot interrupt it; the host's watchdog kills
// the worker and the call is a timeout.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-typed-array-sort",
  description: "hostile case: crash-typed-array-sort",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 64 },
  run() {
    const values = new Float64Array(4_000_000);
    for (let i = 0; i < values.length; i++) values[i] = Math.random();
    values.sort();
    return values[0];
  },
});
