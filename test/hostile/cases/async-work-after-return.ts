// attempts: leave work behind: a timer that would spin for ever (and one
// that would throw), then return at once.
// expect: ok
// expect-output: returned
// A correct host forgets the call's timers when the call ends: nothing of it
// runs later, outside any limit.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-work-after-return",
  description: "hostile case: timers left behind",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    setTimeout(() => {
      for (;;) {
        // would spin if it ever ran
      }
    }, 20);
    setTimeout(() => {
      throw new Error("late throw");
    }, 10);
    return "returned";
  },
});
