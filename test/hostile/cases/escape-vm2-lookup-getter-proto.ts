// attempts: vm2 issue #184 (3.6.7 → 3.6.8, 2019) and GHSA-grj5-jjm8-h35p /
// GHSA-47x8-96vw-5wg6 (2026): `fn.__lookupGetter__("__proto__").call(fn)` and
// `Object.getOwnPropertyDescriptor(proto, "constructor").value`,
// `__defineGetter__` and `Object.entries` of descriptors, on every function
// and object the runtime lends (timers, console, defineTool, z), looking for a
// host Function.
// expect: ok
// expect-output: contained
// A correct host lends only isolate objects: every prototype and descriptor
// leads to this realm's Function.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings, lentFunctions } from "./_escape-kit";

type Any = Record<string, unknown> & { __lookupGetter__(k: string): (() => unknown) | undefined };

export default defineTool({
  name: "escape-vm2-lookup-getter-proto",
  description: "hostile case: __lookupGetter__('__proto__') on runtime values",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run(input, ctx) {
    const findings = new Findings();
    const targets: Array<[string, unknown]> = [...lentFunctions(), ["defineTool", defineTool], ["z", z], ["z.object", z.object], ["ctx", ctx], ["input", input], ["console", (globalThis as Any).console]];
    for (const [name, target] of targets) {
      if (target === null || (typeof target !== "object" && typeof target !== "function")) continue;
      const t = target as Any;
      findings.attempt(`${name}.__lookupGetter__`, () => Object.prototype.__lookupGetter__.call(t, "__proto__")?.call(t));
      findings.attempt(`${name} descriptor`, () => {
        const proto = Object.getPrototypeOf(t) as object;
        return Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
      });
      findings.attempt(`${name} descriptors`, () => Object.entries(Object.getOwnPropertyDescriptors(t)).map(([, d]) => d.value ?? d.get));
      for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(t))) {
        findings.attempt(`${name}.${key}`, () => descriptor.value ?? descriptor.get?.call(t));
      }
    }
    return findings.verdict();
  },
});
