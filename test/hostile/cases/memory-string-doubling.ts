// attempts: double a string and flatten it each time, so the characters are
// really allocated (a plain `s += s` only builds a cheap rope).
// expect: memory
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-string-doubling",
  description: "hostile case: flat string doubling",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const keep: string[] = [];
    let s = "ab".repeat(512);
    for (;;) {
      s = s + s;
      s.indexOf("zz"); // flattens the rope into one sequential string
      keep.push(s);
    }
  },
});
