// attempts: vm2 CVE-2023-29199 (GHSA-xj72-wvfv-8985, 3.9.16): an Error whose
// `name` is an object with a Proxy `toString`, so that formatting its stack
// calls the trap from inside the engine's (in vm2: the host's) stack
// formatting; the trap climbs its `args` and `thisArg` for a host Function;
// the thrown error of formatting is climbed too.
// expect: ok
// expect-output: contained
// A correct host formats the stack in the isolate: the trap only ever sees
// isolate values.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-error-name-proxy",
  description: "hostile case: error.name with a Proxy toString",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    const err = new Error("probe");
    const trap = new Proxy(() => "", {
      apply(_target, thisArg, args) {
        findings.check("trap this", thisArg);
        findings.check("trap args", args);
        throw args;
      },
    });
    (err as unknown as { name: unknown }).name = { toString: trap };
    findings.attempt("stack", () => err.stack);
    findings.attempt("String(err)", () => String(err));
    findings.attempt("console", () => console.log(err));
    return findings.verdict();
  },
});
