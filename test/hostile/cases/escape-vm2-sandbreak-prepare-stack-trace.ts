// attempts: vm2 CVE-2022-36067 "SandBreak" (GHSA-mrgp-mrhc-5jrq, 3.9.11):
// replace the global `Error` with an object whose prepareStackTrace walks the
// CallSites, then make errors happen inside the runtime (a bad timer
// argument, console of a throwing getter, a V8 TypeError) and climb every
// frame's `this` and function for the host's Function.
// expect: ok
// expect-output: contained
// A correct host formats stacks in the isolate only: every frame is an
// isolate frame.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

type CallSite = { getThis(): unknown; getFunction(): unknown };

export default defineTool({
  name: "escape-vm2-sandbreak-prepare-stack-trace",
  description: "hostile case: a fake global Error with prepareStackTrace",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    const g = globalThis as Record<string, unknown>;
    const RealError = Error;
    const sites: CallSite[] = [];
    const prepare = (_error: unknown, callSites: CallSite[]): string => {
      sites.push(...callSites);
      return "x";
    };
    g.Error = { prepareStackTrace: prepare };
    (RealError as unknown as { prepareStackTrace?: unknown }).prepareStackTrace = prepare;
    try {
      findings.attempt("setTimeout(bad)", () => setTimeout("not a function" as unknown as () => void, 1));
      findings.attempt("console getter", () => console.log({ get x(): never { throw new RealError("getter"); } }));
      findings.attempt("V8 TypeError", () => (null as unknown as { x: number }).x);
      findings.attempt("stack", () => new RealError("probe").stack);
    } finally {
      g.Error = RealError;
      delete (RealError as unknown as { prepareStackTrace?: unknown }).prepareStackTrace;
    }
    for (const [index, site] of sites.entries()) {
      findings.attempt(`frame ${index} this`, () => site.getThis());
      findings.attempt(`frame ${index} function`, () => site.getFunction());
    }
    return findings.verdict();
  },
});
