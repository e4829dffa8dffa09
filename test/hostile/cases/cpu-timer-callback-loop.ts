// attempts: run returns a promise, and a setTimeout callback then loops for
// ever, outside run's own synchronous part.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-timer-callback-loop",
  description: "hostile case: loop in a timer callback",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return new Promise((resolve) => {
      setTimeout(() => {
        for (;;) {
          // spin inside the timer
        }
      }, 10);
      setTimeout(() => resolve("too late"), 400);
    });
  },
});
