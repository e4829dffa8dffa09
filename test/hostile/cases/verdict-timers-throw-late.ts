// attempts: a timer callback that throws after a plain answer was given.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-timers-throw-late",
  description: "hostile case: timers-throw-late",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    setTimeout(() => { throw new Error("late"); }, 1);
    return { answered: true };
  },
});
