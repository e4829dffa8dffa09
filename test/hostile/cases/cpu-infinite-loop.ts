// attempts: a synchronous infinite loop in run.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-infinite-loop",
  description: "hostile case: while (true) {}",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    for (;;) {
      // spin
    }
  },
});
