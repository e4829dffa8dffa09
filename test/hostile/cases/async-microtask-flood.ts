// attempts: an endless chain of microtasks (each schedules the next), which
// never yields back to the event loop.
// expect: timeout
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
    return Promise.resolve().then(function spin(): Promise<void> {
      return Promise.resolve().then(spin);
    });
  },
});
