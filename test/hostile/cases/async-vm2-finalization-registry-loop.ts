// attempts: vm2 GHSA-r4fx-v8hh-22mv (2026, timeout bypass through a
// FinalizationRegistry cleanup callback): register objects whose cleanup
// callback loops for ever, drop them, churn the heap so the collector runs,
// and answer at once: the loop would run after the call, outside its limit.
// expect: ok
// expect-output: answered
// A correct host answers this call, and a loop that starts later is cut by
// the next call's limit (or the isolate is dropped): every later call is
// still answered (the runner then calls the benign tool on both workers).
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-vm2-finalization-registry-loop",
  description: "hostile case: FinalizationRegistry cleanup that never ends",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 64 },
  run() {
    const registry = new FinalizationRegistry(() => {
      for (;;) {
        // spins when the collector calls back
      }
    });
    for (let i = 0; i < 10_000; i++) registry.register({ i }, i);
    (globalThis as Record<string, unknown>).keepRegistry = registry;
    let churn: unknown[] = [];
    for (let i = 0; i < 200; i++) churn = new Array(10_000).fill(i);
    void churn;
    return "answered";
  },
});
