// attempts: an Error.prepareStackTrace that itself builds a stack trace, then a
// throw, so that describing the error re-enters the hook.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-prepare-stack-trace-recursion",
  description: "hostile case: crash-prepare-stack-trace-recursion",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    (Error as unknown as { prepareStackTrace: unknown }).prepareStackTrace = () => new Error("again").stack;
    throw new Error("first");
  },
});
