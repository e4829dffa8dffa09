// attempts: vm2 CVE-2023-30547 (GHSA-ch3r-j5x3-6q2m, 3.9.17): throw a Proxy
// whose getPrototypeOf trap overflows the stack, so the sandbox's exception
// handling (which inspects what was thrown) raises a host RangeError that the
// tool's `catch ({ constructor: c })` receives; climb it. Also thrown from a
// timer callback and from a getter the result writer reads.
// expect: ok
// expect-output: contained
// A correct host never inspects a thrown value outside the isolate; every
// catch sees the tool's own values or isolate errors.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

function hostileThrowable(): object {
  return new Proxy(
    {},
    {
      getPrototypeOf(): object | null {
        (function stack(): void {
          stack();
        })();
        return null;
      },
    },
  );
}

export default defineTool({
  name: "escape-vm2-throw-getprototypeof-proxy",
  description: "hostile case: throws a Proxy with a stack-overflowing getPrototypeOf",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    try {
      throw hostileThrowable();
    } catch (caught) {
      findings.attempt("catch constructor", () => (caught as { constructor: unknown }).constructor);
    }
    findings.attempt("instanceof", () => hostileThrowable() instanceof Error);
    await findings.attemptAsync("rejected", () => Promise.reject(hostileThrowable()));
    await findings.attemptAsync("timer", () => new Promise((resolve) =>
        setTimeout(() => {
          try {
            resolve(Object.getPrototypeOf(hostileThrowable()));
          } catch (error) {
            resolve(error);
          }
        }, 1),
      ));
    return findings.verdict();
  },
});
