// attempts: the classic vm escape: `this.constructor.constructor("return process")()`,
// through the run's `this` (the tool object the runtime calls run on).
// expect: tool_error
// expect-message: process is not defined
// A correct host has no process in the isolate: the Function constructor is
// the isolate's own, so the body throws a ReferenceError → tool_error.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-constructor-chain",
  description: "hostile case: this.constructor.constructor('return process')()",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this as unknown as { constructor: { constructor: FunctionConstructor } };
    const leaked = self.constructor.constructor("return process")() as { pid?: number };
    return { pid: leaked.pid };
  },
});
