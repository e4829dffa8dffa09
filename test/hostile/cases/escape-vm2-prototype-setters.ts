// attempts: vm2 GHSA-vwrp-x96c-mhwq (2026, host intrinsic prototype pollution
// through the bridge's write traps) and the older __defineSetter__ /
// __defineGetter__ attacks: define setters and getters on Object.prototype
// and Array.prototype for the keys the runtime writes and reads (ok, output,
// structured, kind, message, then, length, 0), answer, and climb every
// `this` and value those accessors see while the runtime builds the result.
// expect: ok
// expect-output: contained
// A correct host's runtime writes its envelope with captured intrinsics and
// defines its own properties: accessors on the prototypes see only isolate
// values, and the result is unchanged.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

const KEYS = ["ok", "output", "structured", "kind", "message", "then", "error", "value", "envelope", "stack"];

export default defineTool({
  name: "escape-vm2-prototype-setters",
  description: "hostile case: accessors on Object.prototype for runtime keys",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    for (const key of KEYS) {
      Object.prototype.__defineSetter__(key, function (this: unknown, value: unknown) {
        findings.check(`set ${key} this`, this);
        findings.check(`set ${key} value`, value);
        Object.defineProperty(this, key, { value, writable: true, enumerable: true, configurable: true });
      });
    }
    // The verdict is taken now; the accessors stay for the runtime to meet as it answers.
    return findings.verdict();
  },
});
