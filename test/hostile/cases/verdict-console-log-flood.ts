// attempts: log 100,000 long lines and answer.
// expect: ok
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-console-log-flood",
  description: "hostile case: console-log-flood",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    for (let i = 0; i < 100_000; i++) console.log("y".repeat(600));
    return { done: true };
  },
});
