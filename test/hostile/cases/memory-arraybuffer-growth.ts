// attempts: allocate 4 MiB ArrayBuffers without bound and keep them.
// expect: memory
// The tool fills its limit step by step: memory abuse, a memory strike.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-arraybuffer-growth",
  description: "hostile case: ArrayBuffer growth",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const keep: ArrayBuffer[] = [];
    for (;;) keep.push(new ArrayBuffer(4 * 1024 * 1024));
  },
});
