// attempts: unbounded allocation at module top level, while loading.
// expect-load: memory
import { defineTool } from "corral";
import { z } from "zod";

const hoard: number[][] = [];
for (;;) hoard.push(new Array(1 << 16).fill(hoard.length));

export default defineTool({
  name: "memory-top-level-growth",
  description: "hostile case: top-level allocation",
  input: z.object({}),
  effects: [],
  run() {
    return hoard.length;
  },
});
