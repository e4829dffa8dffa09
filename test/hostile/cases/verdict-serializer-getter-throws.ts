// attempts: return an object whose getter throws while it is written.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-serializer-getter-throws",
  description: "hostile case: serializer-getter-throws",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    return { get boom() { throw new Error("getter"); } };
  },
});
