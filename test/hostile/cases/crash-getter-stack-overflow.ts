// attempts: a result getter that recurses into itself, so the stack overflows
// inside the runtime's writer.
// expect: tool_error
// expect-message: Maximum call stack size exceeded
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-getter-stack-overflow",
  description: "hostile case: crash-getter-stack-overflow",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const value = {
      get loop(): unknown {
        return (value as { loop: unknown }).loop;
      },
    };
    return value;
  },
});
