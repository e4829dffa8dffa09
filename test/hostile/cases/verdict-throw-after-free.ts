// attempts: allocate most of its memory, let it go, then throw a plain Error.
// expect: tool_error
// expect-message: plain failure
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-throw-after-free",
  description: "hostile case: throw-after-free",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    let keep: unknown[] | null = [];
    for (let i = 0; i < 120_000; i++) keep.push({ i, s: "x" + i });
    keep = null;
    throw new Error("plain failure");
  },
});
