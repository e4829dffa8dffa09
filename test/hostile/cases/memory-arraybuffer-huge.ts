// attempts: one ArrayBuffer of 1 GiB, far past the 32 MB limit, touched so
// the pages are really used.
// expect: tool_error
// expect-message: Array buffer allocation failed
// The allocation is refused before anything is used (V8's own RangeError,
// as in plain Node for an oversized request): nothing was consumed, so the
// tool's uncaught RangeError is its own error, not a memory strike.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-arraybuffer-huge",
  description: "hostile case: one huge ArrayBuffer",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const buffer = new ArrayBuffer(1024 * 1024 * 1024);
    new Uint8Array(buffer).fill(7);
    return buffer.byteLength;
  },
});
