// attempts: as many setInterval(fn, 0) as the runtime allows, then wait for
// ever, so the worker is flooded with timer fires.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-interval-storm",
  description: "hostile case: interval storm",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    let fired = 0;
    try {
      for (;;) setInterval(() => fired++, 0);
    } catch {
      // the runtime's cap on pending timers
    }
    return new Promise(() => {});
  },
});
