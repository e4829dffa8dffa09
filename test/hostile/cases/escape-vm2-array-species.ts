// attempts: vm2 GHSA-grj5-jjm8-h35p and GHSA-9qj6-qjgg-37qq (2026): arrays
// whose constructor's Symbol.species returns a class the tool controls (one
// that returns the very array it was built from), handed to the runtime in
// the result and the log, and put through map/filter/slice/concat/flat;
// the species constructor climbs whatever it receives.
// expect: ok
// expect-output: contained
// A correct host's runtime copies results with captured intrinsics in the
// isolate; the species only ever sees isolate values.
import { defineTool, toolResult } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-array-species",
  description: "hostile case: Array Symbol.species self-return",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    const hostile = [1, 2, 3] as number[] & { constructor: unknown };
    class Species {
      constructor(...args: unknown[]) {
        findings.check("species args", args);
        return hostile;
      }
    }
    hostile.constructor = { [Symbol.species]: Species };
    findings.attempt("map", () => hostile.map((x) => x));
    findings.attempt("filter", () => hostile.filter(() => true));
    findings.attempt("slice", () => hostile.slice());
    findings.attempt("concat", () => hostile.concat([4]));
    findings.attempt("flat", () => [hostile].flat());
    console.log(hostile);
    return toolResult({ text: findings.verdict(), structured: { list: hostile } });
  },
});
