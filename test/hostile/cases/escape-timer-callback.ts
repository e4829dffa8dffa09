// attempts: look at what a timer callback receives (its `this`, arguments)
// and at the global inside it, for the worker's timer machinery.
// expect: ok
// expect-output: {"thisIsHarmless":true,"args":["x"],"process":"undefined","schedule":"undefined"}
// A correct host fires timers through the runtime with no host values.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-timer-callback",
  description: "hostile case: probes inside a timer callback",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return new Promise((resolve) => {
      setTimeout(
        function (this: unknown, ...args: unknown[]) {
          const g = globalThis as Record<string, unknown>;
          resolve({
            thisIsHarmless: this === undefined || this === globalThis,
            args,
            process: typeof g.process,
            schedule: typeof g.__corral_schedule,
          });
        },
        5,
        "x",
      );
    });
  },
});
