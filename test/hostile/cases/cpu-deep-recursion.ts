// attempts: unbounded recursion.
// expect: tool_error
// expect-message: Maximum call stack size exceeded
// V8 throws a RangeError inside the isolate; the runtime reports it.
import { defineTool } from "corral";
import { z } from "zod";

function down(n: number): number {
  return down(n + 1) + 1;
}

export default defineTool({
  name: "cpu-deep-recursion",
  description: "hostile case: stack overflow",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return down(0);
  },
});
