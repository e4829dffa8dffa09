// attempts: return what structured clone chokes on or mangles: a live
// SharedArrayBuffer, a WeakMap, a WebAssembly.Module, an AggregateError.
// expect: ok
// expect-output: {"sab":{},"weak":{},"module":{},"error":{"name":"AggregateError","message":"several"}}
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-structured-clone-values",
  description: "hostile case: crash-structured-clone-values",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const W = (globalThis as { WebAssembly?: { Module: new (b: Uint8Array) => object } }).WebAssembly;
    if (W === undefined) throw new Error("no WebAssembly in this isolate");
    return {
      sab: new SharedArrayBuffer(16),
      weak: new WeakMap(),
      module: new W.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])),
      error: new AggregateError([new Error("inner")], "several"),
    };
  },
});
