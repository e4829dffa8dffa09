// attempts: an endless chain of microtasks (each schedules the next), which
// never yields back to the event loop, and a promise that never settles.
// expect: timeout
// Each microtask frees what the one before it held, so memory stays flat: only
// the clock can stop it (the growing promise chain is async-promise-chain).
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-microtask-flood",
  description: "hostile case: microtask flood",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    const again = (): void => {
      queueMicrotask(again);
    };
    again();
    return new Promise<void>(() => {});
  },
});
