// attempts: read Node's `process` as a global of the isolate.
// expect: ok
// expect-output: undefined
// A correct host gives the tool a bare V8 context: there is no process.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-process-global",
  description: "hostile case: looks for process on the global object",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return typeof (globalThis as Record<string, unknown>).process;
  },
});
