// attempts: vm2 CVE-2023-32314 (GHSA-whpj-8f3w-67p5, 3.9.18) and
// CVE-2026-22709 (GHSA-99p7-6v5w-7xg8, 3.10.2): an Error whose `name` is a
// Symbol makes reading its stack throw a TypeError from the engine's (in vm2:
// the host's) formatting; read it inside an async function and take the
// rejection through `.catch`, `.then(_, f)`, `Promise.prototype.then.call`
// and `await`, then climb it.
// expect: ok
// expect-output: contained
// A correct host's promises and errors are the isolate's: the TypeError is
// an isolate TypeError whichever way it arrives.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

function symbolNamed(): Error {
  const err = new Error("probe");
  (err as unknown as { name: unknown }).name = Symbol("name");
  return err;
}

export default defineTool({
  name: "escape-vm2-symbol-name-async-stack",
  description: "hostile case: error.name = Symbol() read in an async function",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    const reasons: unknown[] = [];
    const read = async (): Promise<unknown> => symbolNamed().stack;
    await read().catch((e: unknown) => reasons.push(e));
    await read().then(undefined, (e: unknown) => reasons.push(e));
    await Promise.prototype.then.call(read(), undefined, (e: unknown) => reasons.push(e));
    await findings.attemptAsync("await", () => read());
    findings.attempt("String", () => String(symbolNamed()));
    for (const reason of reasons) findings.check("reason", reason);
    return findings.verdict();
  },
});
