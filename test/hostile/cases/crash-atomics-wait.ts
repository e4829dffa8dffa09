// attempts: block the isolate's thread for ever with Atomics.wait on a
// SharedArrayBuffer nobody will notify.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-atomics-wait",
  description: "hostile case: crash-atomics-wait",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    return Atomics.wait(cell, 0, 0);
  },
});
