// attempts: vm2 CVE-2019-10761 (fixed in 3.6.11) and CVE-2021-23555 (3.9.6):
// recurse to the very edge of the stack, then call each function the runtime
// lends the tool (timers, console, structuredClone) so that the RangeError is
// raised inside runtime code, catch it, and climb its constructors to a host
// Function.
// expect: ok
// expect-output: contained
// A correct host's runtime functions live in the isolate: every error caught
// at the edge is the isolate's own.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings, atStackEdge, lentFunctions } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-stack-overflow-host-error",
  description: "hostile case: host errors raised at the stack's edge",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    for (const [name, fn] of lentFunctions()) {
      if (typeof fn !== "function") continue;
      const id = name.startsWith("clear") ? 1 : () => {};
      for (const value of atStackEdge(() => (fn as (...a: unknown[]) => unknown)(id, 1, { deep: [1, 2, 3] }))) findings.check(name, value);
    }
    for (const value of atStackEdge(() => JSON.stringify({ a: [1, { b: 2 }] }))) findings.check("JSON.stringify", value);
    return findings.verdict();
  },
});
