// attempts: a promise that resolves to a promise that resolves to a promise,
// without end: microtasks that never yield, and a chain of pending promises
// that grows with every step.
// expect: memory|timeout
// Both limits are truly reached: the chain is live memory (each link waits on
// the next), and the microtasks never yield. Which comes first depends on how
// fast the machine builds links (Node 24 reached 32 MB within 440 ms on CI);
// either is a strike on this case's own source.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-promise-chain",
  description: "hostile case: an endless chain of pending promises",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    return Promise.resolve().then(function spin(): Promise<void> {
      return Promise.resolve().then(spin);
    });
  },
});
