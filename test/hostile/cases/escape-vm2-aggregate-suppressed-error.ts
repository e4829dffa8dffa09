// attempts: vm2 GHSA-55hx-c926-fr95 and GHSA-x965-fc75-jpqh (2026): make the
// engine build AggregateError (Promise.any of rejections, including engine
// errors) and SuppressedError (`using` disposal, where supported) whose
// sub-errors come from runtime and engine code, then climb `.errors`,
// `.error` and `.suppressed` for a host Function.
// expect: ok
// expect-output: contained
// A correct host's sub-errors are all isolate errors.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-aggregate-suppressed-error",
  description: "hostile case: AggregateError and SuppressedError sub-errors",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    const engineError = (): Promise<never> => new Promise((_resolve, reject) => {
      try {
        (null as unknown as { x: number }).x;
      } catch (error) {
        reject(error);
      }
    });
    const timerError = (): Promise<never> => new Promise((_resolve, reject) => {
      try {
        setTimeout(undefined as unknown as () => void, 1);
        reject(new Error("setTimeout accepted undefined"));
      } catch (error) {
        reject(error);
      }
    });
    try {
      await Promise.any([engineError(), timerError(), Promise.reject(Object.create(null))]);
    } catch (aggregate) {
      findings.check("aggregate", aggregate);
      for (const [i, sub] of ((aggregate as { errors?: unknown[] }).errors ?? []).entries()) findings.check(`errors[${i}]`, sub);
    }
    const S = (globalThis as Record<string, unknown>).SuppressedError as (new (e: unknown, s: unknown, m: string) => { error: unknown; suppressed: unknown }) | undefined;
    if (typeof S === "function") {
      findings.attempt("SuppressedError", () => {
        const made = new S(new TypeError("a"), new RangeError("b"), "m");
        return [made.error, made.suppressed];
      });
    }
    const D = (globalThis as Record<string, unknown>).DisposableStack as (new () => { defer(f: () => void): void; dispose(): void }) | undefined;
    if (typeof D === "function") {
      findings.attempt("DisposableStack", () => {
        const stack = new D();
        stack.defer(() => {
          throw new TypeError("first");
        });
        stack.defer(() => (null as unknown as { y: number }).y);
        stack.dispose();
      });
    }
    return findings.verdict();
  },
});
