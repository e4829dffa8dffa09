// attempts: a chain of short timers, each scheduling the next, that would
// only resolve long after the call's limit.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-timer-chain",
  description: "hostile case: timer chain past the limit",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return new Promise((resolve) => {
      let n = 0;
      const step = (): void => {
        n++;
        if (n >= 100_000) resolve(n);
        else setTimeout(step, 1);
      };
      step();
    });
  },
});
