// attempts: grow a WebAssembly.Memory page by page (64 KiB each) and touch
// every page, memory V8 does not count in the JS heap.
// expect: memory
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-wasm-grow",
  description: "hostile case: WebAssembly memory growth",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    const W = (globalThis as { WebAssembly?: { Memory: new (d: { initial: number; maximum?: number }) => { grow(n: number): number; buffer: ArrayBuffer } } }).WebAssembly;
    if (W === undefined) return "no WebAssembly";
    const memory = new W.Memory({ initial: 1, maximum: 65536 });
    for (;;) {
      memory.grow(64);
      new Uint8Array(memory.buffer).fill(1);
    }
  },
});
