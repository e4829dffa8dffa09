// attempts: grow an array of small objects without bound.
// expect: memory
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-array-growth",
  description: "hostile case: array of objects",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const keep: { i: number; s: string; list: number[] }[] = [];
    for (let i = 0; ; i++) keep.push({ i, s: `item ${i}`, list: new Array(256).fill(i) });
  },
});
