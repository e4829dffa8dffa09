// attempts: get the "real" global object through Function("return this"),
// indirect eval and a sloppy-mode function's `this`, and compare them.
// expect: ok
// expect-output: {"same":true,"process":"undefined"}
// A correct host has one global per context, the isolate's own.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-function-global",
  description: "hostile case: Function('return this')()",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const a = Function("return this")() as Record<string, unknown>;
    const b = (0, eval)("this") as Record<string, unknown>;
    const c = Function("return (function () { return this; })()")() as Record<string, unknown>;
    return { same: a === globalThis && b === globalThis && c === globalThis, process: typeof a.process };
  },
});
