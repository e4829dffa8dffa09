// attempts: vm2 CVE-2023-29017 (GHSA-7jxr-cg7f-gpgv, 3.9.15) and
// CVE-2023-37466 (GHSA-cchq-frgv-rjh5, 3.9.19), GHSA-qvjj-29qf-hp7p: an async
// function overflows the stack while prepareStackTrace is set; its promise
// gets a constructor whose Symbol.species is a FakePromise, so `then` hands
// the rejection reason to the tool's executor unsanitised; climb it.
// expect: ok
// expect-output: contained
// A correct host raises that error in the isolate: the reason is an isolate
// RangeError.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-async-stack-promise-species",
  description: "hostile case: async stack overflow through a species FakePromise",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    const E = Error as unknown as { prepareStackTrace?: unknown };
    E.prepareStackTrace = (_e: unknown, frames: Array<{ getThis(): unknown }>) => frames.map((f) => findings.check("frame this", f.getThis()));
    const reasons: unknown[] = [];
    async function overflow(): Promise<void> {
      (function stack(): void {
        stack();
      })();
    }
    const p = overflow() as Promise<void> & { constructor: unknown };
    class FakePromise {
      constructor(executor: (resolve: (v: unknown) => unknown, reject: (e: unknown) => unknown) => void) {
        executor(
          (value) => reasons.push(value),
          (error) => reasons.push(error),
        );
      }
    }
    p.constructor = { [Symbol.species]: FakePromise };
    findings.attempt("then", () => p.then());
    await p.catch((error: unknown) => reasons.push(error));
    delete E.prepareStackTrace;
    for (const reason of reasons) findings.check("reason", reason);
    return findings.verdict();
  },
});
