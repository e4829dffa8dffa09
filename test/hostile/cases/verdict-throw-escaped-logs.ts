// attempts: log 100 lines of control characters (each escapes to six) and throw, so the error envelope would exceed its budget.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-throw-escaped-logs",
  description: "hostile case: throw-escaped-logs",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    const s = "\u0001".repeat(499);
    for (let i = 0; i < 100; i++) console.log(s);
    throw new Error("after the logs");
  },
});
