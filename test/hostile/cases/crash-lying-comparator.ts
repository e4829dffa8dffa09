// attempts: Array.prototype.sort of 2 million numbers with a comparator that
// lies (random answers) and mutates the array while it is sorted.
// expect: timeout
// V8's sort survives lying comparators; the sheer work runs past the limit.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-lying-comparator",
  description: "hostile case: crash-lying-comparator",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 64 },
  run() {
    const values = Array.from({ length: 2_000_000 }, (_, i) => i);
    let calls = 0;
    values.sort(() => {
      if (++calls % 1000 === 0) values[calls % values.length] = -calls;
      return Math.random() - 0.5;
    });
    return calls;
  },
});
