// attempts: vm2 GHSA-m283-3h24-438v and its bypass GHSA-647f-g98j-qq25
// (2026): reach runtime functions through `Function.prototype.call.call`,
// `Reflect.apply`, `bind` and `Function.prototype.apply.apply` with forged
// receivers and argument lists (Proxies whose traps climb what the callee
// reads), then climb what comes back or is thrown.
// expect: ok
// expect-output: contained
// A correct host's runtime functions are isolate functions: any receiver
// they get is the tool's, and they return isolate values.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings, lentFunctions } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-call-apply-indirection",
  description: "hostile case: call/apply indirection on runtime functions",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const findings = new Findings();
    const spy = new Proxy(
      {},
      {
        get(_t, key, receiver) {
          findings.check(`spy get ${String(key)}`, receiver);
          return undefined;
        },
      },
    );
    const args = new Proxy([spy, 1], {
      get(target, key) {
        return Reflect.get(target, key);
      },
    });
    for (const [name, fn] of lentFunctions()) {
      if (typeof fn !== "function") continue;
      const f = fn as (...a: unknown[]) => unknown;
      findings.attempt(`${name} call.call`, () => Function.prototype.call.call(f, spy, spy, 1));
      findings.attempt(`${name} Reflect.apply`, () => Reflect.apply(f, spy, args));
      findings.attempt(`${name} apply.apply`, () => Function.prototype.apply.apply(f, [spy, args]));
      findings.attempt(`${name} bind`, () => f.bind(spy, spy)());
      findings.attempt(`${name} new`, () => Reflect.construct(f as unknown as new () => unknown, [spy]));
    }
    return findings.verdict();
  },
});
