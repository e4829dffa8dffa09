// attempts: a debounce over 200,000 events: set and clear a timer for each.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-timers-debounce",
  description: "hostile case: timers-debounce",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    return new Promise((resolve) => {
      let t: unknown;
      for (let i = 0; i < 200_000; i++) {
        clearTimeout(t as number);
        t = setTimeout(() => resolve({ fired: true }), 5);
      }
    });
  },
});
