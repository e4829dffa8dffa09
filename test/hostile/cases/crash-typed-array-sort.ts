// attempts: sort 4-million-element Float64Arrays without a comparator, again and
// again: a native sort that does not check for termination.
// expect: timeout
// The isolate's own timeout cannot interrupt a sort; the host's watchdog kills
// the worker and the call is a timeout. One sort takes about the 500 ms limit
// on a quick machine, so the tool sorts until it is stopped: whichever stops it
// (the isolate's timer between two sorts, the watchdog during one), the call
// is a timeout, however fast the machine.
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
    for (;;) {
      for (let i = 0; i < values.length; i++) values[i] = Math.random();
      values.sort();
    }
  },
});
