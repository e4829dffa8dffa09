// attempts: new Array(2 ** 31).fill(0): one request for 16 GB of elements, which
// V8 answers with a fatal out-of-memory abort of the whole worker process.
// expect: memory
// The limit leaves V8 time to reach its fatal out-of-memory first on a slow,
// loaded machine. The worker dies of V8's heap exhaustion (its stderr says so: "Last few
// GCs", "is_heap_oom"); that is the memory limit, not a random crash.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-array-oom",
  description: "hostile case: crash-array-oom",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 4000, memoryMb: 32 },
  run() {
    return new Array(2 ** 31).fill(0).length;
  },
});
