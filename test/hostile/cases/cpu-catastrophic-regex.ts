// attempts: catastrophic backtracking: /(a+)+$/ on a long run of "a" that
// ends in a character the pattern cannot match.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-catastrophic-regex",
  description: "hostile case: ReDoS",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return /(a+)+$/.test(`${"a".repeat(64)}!`);
  },
});
