// attempts: throw an Error whose message and stack are megabytes of escaped characters.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-throw-huge-message",
  description: "hostile case: throw-huge-message",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    const e = new Error("\u0002".repeat(1 << 20));
    e.stack = "\n".repeat(1 << 20);
    throw e;
  },
});
