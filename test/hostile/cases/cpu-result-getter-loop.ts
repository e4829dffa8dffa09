// attempts: return a value whose getter loops for ever, so the loop runs
// while the result is being read (after run has returned).
// expect: timeout
// A correct host reads results inside the isolate, under the call's limit.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-result-getter-loop",
  description: "hostile case: a getter that never returns",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return {
      ok: 1,
      get trap(): number {
        for (;;) {
          // spin
        }
      },
    };
  },
});
