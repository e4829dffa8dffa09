// attempts: grow a Map with string keys without bound.
// expect: memory
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-map-growth",
  description: "hostile case: Map growth",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const map = new Map<string, number[]>();
    for (let i = 0; ; i++) map.set(`key-${i}`, new Array(2048).fill(i));
  },
});
