// attempts: return a promise that never settles.
// expect: timeout
// isolated-vm's own timeout does not cover a pending promise; the worker's
// deadline must.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-never-settles",
  description: "hostile case: never-settling promise",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return new Promise(() => {});
  },
});
