// attempts: return a rope string of 256 Mi characters made with 28
// doublings: tiny in memory, enormous once flattened or copied.
// expect: output_too_large
// A correct host measures the length before flattening or copying anything.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-rope-string",
  description: "hostile case: rope string",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    let s = "x";
    for (let i = 0; i < 28; i++) s += s;
    return s;
  },
});
