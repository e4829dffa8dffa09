// attempts: an interval that clears itself after a few ticks, then answers.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-timers-interval-cleared",
  description: "hostile case: timers-interval-cleared",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    return new Promise((resolve) => {
      let n = 0;
      const id = setInterval(() => { if (++n === 5) { clearInterval(id); resolve({ ticks: n }); } }, 1);
    });
  },
});
