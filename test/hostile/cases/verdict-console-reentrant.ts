// attempts: log a value whose getters log again while it is being formatted.
// expect: ok
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-console-reentrant",
  description: "hostile case: console-reentrant",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    const evil: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) Object.defineProperty(evil, "k" + i, { enumerable: true, get() { console.log("x".repeat(400), evil); return i; } });
    for (let i = 0; i < 200; i++) console.log(evil);
    return { logged: true };
  },
});
