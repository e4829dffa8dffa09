// attempts: vm2 GHSA-ffh4-j6h5-pg66 (2026, WebAssembly sandbox escape): import
// the runtime's functions (timers, console, structuredClone) into a Wasm
// module and call them from Wasm, catch what they throw back through Wasm,
// and climb the module's exports, its instance and every error.
// expect: ok
// expect-output: contained
// A correct host's Wasm runs in the isolate: imported functions are isolate
// functions and their errors isolate errors.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings, lentFunctions } from "./_escape-kit";

// (module (import "m" "f" (func $f)) (func (export "run") call $f))
const BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x02, 0x07, 0x01, 0x01, 0x6d, 0x01, 0x66, 0x00, 0x00, 0x03,
  0x02, 0x01, 0x00, 0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x01, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x10, 0x00, 0x0b,
]);

export default defineTool({
  name: "escape-vm2-wasm-imports",
  description: "hostile case: runtime functions imported into Wasm",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    const module = new WebAssembly.Module(BYTES);
    findings.check("module", module);
    for (const [name, fn] of [...lentFunctions(), ["thrower", () => { throw Object.create(null); }] as [string, unknown]]) {
      if (typeof fn !== "function") continue;
      findings.attempt(`wasm calls ${name}`, () => {
        const instance = new WebAssembly.Instance(module, { m: { f: fn as () => void } });
        findings.check(`${name} instance`, instance);
        findings.check(`${name} export`, instance.exports.run);
        return (instance.exports.run as () => unknown)();
      });
    }
    return findings.verdict();
  },
});
