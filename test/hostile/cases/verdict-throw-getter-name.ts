// attempts: throw an object whose name and message getters throw.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-throw-getter-name",
  description: "hostile case: throw-getter-name",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    throw { get name() { throw new Error("no"); }, get message() { throw new Error("no"); } };
  },
});
