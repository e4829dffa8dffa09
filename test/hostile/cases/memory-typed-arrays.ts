// attempts: allocate 1 MiB typed arrays without bound (memory outside the
// JS heap, in ArrayBuffer backing stores).
// expect: memory
// The tool fills its limit in 1 MiB steps: that is memory abuse and must
// count as a memory strike, whichever layer stopped it.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-typed-arrays",
  description: "hostile case: typed arrays",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const keep: Uint8Array[] = [];
    for (;;) {
      const chunk = new Uint8Array(1 << 20);
      chunk.fill(1);
      keep.push(chunk);
    }
  },
});
