// attempts: throw its own RangeError with V8's allocation-refused words while far under its limit.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-throw-fake-refusal",
  description: "hostile case: throw-fake-refusal",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    throw new RangeError("Array buffer allocation failed");
  },
});
