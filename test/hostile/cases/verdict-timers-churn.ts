// attempts: set 900 timers, clear them all, again and again, then answer from one.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-timers-churn",
  description: "hostile case: timers-churn",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    return new Promise((resolve) => {
      for (let round = 0; round < 200; round++) {
        const ids = [];
        for (let i = 0; i < 900; i++) ids.push(setTimeout(() => undefined, 1000));
        for (const id of ids) clearTimeout(id);
      }
      setTimeout(() => resolve({ ok: true }), 1);
    });
  },
});
