// attempts: leave a detached promise rejected with nobody to handle it, and
// return a good value.
// expect: ok
// expect-output: returned
// The call's own result is fine; an unhandled rejection elsewhere is the
// tool's sloppiness, not a crash of the sandbox (a crash is a strike).
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-detached-rejection",
  description: "hostile case: unhandled rejection beside a good result",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    void Promise.reject(new Error("detached"));
    return "returned";
  },
});
