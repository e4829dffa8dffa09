// attempts: throw a real Error whose message and stack are replaced by
// objects (with their own hostile toString), hoping the runtime converts them.
// expect: tool_error
// A correct runtime only takes strings: the message is a string, whatever
// the fields hold.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-error-message-object",
  description: "hostile case: error fields that are objects",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const error = new Error("original");
    const hostile = {
      toString(): string {
        throw new Error("toString ran");
      },
    };
    Object.defineProperty(error, "message", { value: hostile });
    Object.defineProperty(error, "stack", { value: hostile });
    Object.defineProperty(error, "name", { value: hostile });
    throw error;
  },
});
