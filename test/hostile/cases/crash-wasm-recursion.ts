// attempts: infinite recursion inside WebAssembly code.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-wasm-recursion",
  description: "hostile case: crash-wasm-recursion",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const W = (globalThis as { WebAssembly?: { Module: new (b: Uint8Array) => object; Instance: new (m: object) => { exports: { f(): void } } } }).WebAssembly;
    if (W === undefined) throw new Error("no WebAssembly in this isolate");
    // (module (func $f (export "f") call $f))
    const bytes = new Uint8Array([
      0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 6, 1, 4, 0, 16, 0, 11,
    ]);
    new W.Instance(new W.Module(bytes)).exports.f();
    return "returned";
  },
});
