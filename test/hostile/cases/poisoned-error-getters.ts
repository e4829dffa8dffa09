// attempts: throw an object whose name, message, stack and toString are all
// getters that throw, plus a Symbol.toPrimitive that throws.
// expect: tool_error
// expect-message: a value was thrown that cannot be described
// A correct runtime reads each field under guard and answers a clean text.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-error-getters",
  description: "hostile case: error with hostile getters",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const boom = (): never => {
      throw new Error("read");
    };
    const hostile = {};
    for (const key of ["name", "message", "stack", "toString", "valueOf", "cause"]) {
      Object.defineProperty(hostile, key, { get: boom, enumerable: true });
    }
    Object.defineProperty(hostile, Symbol.toPrimitive, { get: boom });
    throw hostile;
  },
});
