// attempts: catch the termination of a loop and loop again in catch and
// finally blocks, hoping the runtime's timeout is a catchable exception.
// expect: timeout
// V8's termination cannot be caught: catch and finally do not run.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-finally-loop",
  description: "hostile case: loops in catch and finally",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    for (;;) {
      try {
        for (;;) {
          // spin
        }
      } catch {
        // try again
      } finally {
        for (;;) {
          // and again
        }
      }
    }
  },
});
