// attempts: the SES repairs of the Function constructors (SES's
// tame-function-constructors: AsyncFunction, GeneratorFunction and
// AsyncGeneratorFunction reach a Function that evaluates in the real global
// scope) and Node `vm`'s `this.constructor.constructor` breakout, through
// every kind of function the tool can make or is lent, including bound,
// class, arrow and Proxy-wrapped ones; each constructor evaluates a body that
// looks for process, require and Buffer.
// expect: ok
// expect-output: contained
// A correct host has one realm per isolate: every constructor evaluates in
// the tool's own global, which has none of them.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings, lentFunctions } from "./_escape-kit";

export default defineTool({
  name: "escape-ses-function-constructors",
  description: "hostile case: AsyncFunction / GeneratorFunction constructors",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    const kinds: Array<[string, unknown]> = [
      ["async", async function () {}],
      ["generator", function* () {}],
      ["async generator", async function* () {}],
      ["arrow", () => 1],
      ["class", class {}],
      ["bound", function () {}.bind(null)],
      ["proxy", new Proxy(function () {}, {})],
      ...lentFunctions(),
    ];
    const body = "return [typeof process, typeof require, typeof Buffer].join()";
    for (const [name, fn] of kinds) {
      findings.check(name, fn);
      const ctor = (fn as { constructor?: unknown } | undefined)?.constructor as ((...a: string[]) => unknown) | undefined;
      if (typeof ctor !== "function") continue;
      findings.attempt(`${name} constructor`, () => {
        const made = ctor(body) as () => unknown;
        const out = made();
        if (typeof out === "string" && out !== "undefined,undefined,undefined") throw new Error(`host names: ${out}`);
        return made;
      });
    }
    // A thrown "host names" would be an isolate Error: count it explicitly.
    const text = findings.verdict();
    let direct = "";
    for (const [, fn] of kinds) {
      try {
        const ctor = (fn as { constructor: (b: string) => () => unknown }).constructor;
        const out = ctor(body)();
        if (typeof out === "string" && out !== "undefined,undefined,undefined") direct = out;
      } catch {
        // a generator constructor's result is a generator; nothing to read
      }
    }
    return direct === "" ? text : `escaped: ${direct}`;
  },
});
