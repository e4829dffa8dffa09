// attempts: a top level that works for 400 ms (under the load limit) in a tool whose
// calls may take only 100 ms: the module's top level must not run under a call's limit.
// expect: ok
// repeat: 2
import { defineTool } from "corral";
import { z } from "zod";

const until = Date.now() + 400;
let spins = 0;
while (Date.now() < until) spins++;

export default defineTool({
  name: "verdict-load-vs-call",
  description: "hostile case: slow top level, fast calls",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 100, memoryMb: 32 },
  run() {
    return { loaded: spins > 0 };
  },
});
