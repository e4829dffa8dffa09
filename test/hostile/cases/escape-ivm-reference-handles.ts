// attempts: isolated-vm CVE-2021-21413 (GHSA-mmhj-4w6j-76h7, fixed in 4.0.0:
// a Reference handed to an isolate gave access to the host's Function through
// its prototype chain) and CVE-2022-39266 (GHSA-2jjq-x548-rhpv, 4.5.0: V8
// cachedData from an untrusted source): walk everything reachable from the
// global object, the tool's input and context and the runtime's functions,
// with prototypes and property descriptors, for an isolated-vm handle
// (Reference, ExternalCopy, Callback: applySync, deref, copyInto, derefInto)
// or a compile API taking cachedData, and climb every function found.
// expect: ok
// expect-output: contained
// A correct host hands an isolate no handle: the runtime's callbacks live in
// its closure, and code caches are made and checked by the worker.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

const HANDLE_METHODS = ["applySync", "applySyncPromise", "applyIgnored", "deref", "derefInto", "copyInto", "getSync", "setSync", "compileScript", "compileScriptSync", "compileModule", "createSnapshot", "cachedData"];

export default defineTool({
  name: "escape-ivm-reference-handles",
  description: "hostile case: looks for isolated-vm handles in reach",
  input: z.object({ probe: z.string().default("x") }),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run(input, ctx) {
    const findings = new Findings();
    const handles: string[] = [];
    const seen = new Set<unknown>();
    const queue: Array<[string, unknown]> = [["globalThis", globalThis], ["input", input], ["ctx", ctx], ["defineTool", defineTool], ["z", z]];
    while (queue.length > 0 && seen.size < 20_000) {
      const [path, value] = queue.shift()!;
      if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value)) continue;
      seen.add(value);
      if (typeof value === "function") findings.check(path, value);
      let keys: PropertyKey[] = [];
      try {
        keys = Reflect.ownKeys(value);
      } catch {
        continue;
      }
      for (const key of keys) {
        // WeakRef.prototype.deref is the standard one, not a handle's.
        if (HANDLE_METHODS.includes(String(key)) && value !== WeakRef.prototype) handles.push(`${path}.${String(key)}`);
        try {
          const descriptor = Object.getOwnPropertyDescriptor(value, key);
          if (descriptor === undefined) continue;
          queue.push([`${path}.${String(key)}`, descriptor.value]);
          queue.push([`${path}.get ${String(key)}`, descriptor.get]);
          queue.push([`${path}.set ${String(key)}`, descriptor.set]);
        } catch {
          // a descriptor that cannot be read leads nowhere
        }
      }
      try {
        queue.push([`${path}.[[Prototype]]`, Object.getPrototypeOf(value)]);
      } catch {
        // no prototype to follow
      }
    }
    const verdict = findings.verdict();
    return handles.length === 0 ? verdict : `handles: ${handles.slice(0, 5).join(", ")}; ${verdict}`;
  },
});
