// attempts: Error.prepareStackTrace to get CallSite objects of every frame
// (including the runtime's), then each frame's `this`, function and file,
// looking for a host object or a host file path.
// expect: ok
// expect-output: {"process":false,"hostPaths":[]}
// A correct host has only isolate frames: no process, no host file names.
import { defineTool } from "corral";
import { z } from "zod";

type CallSite = { getThis(): unknown; getFunction(): unknown; getFileName(): string | null | undefined };

export default defineTool({
  name: "escape-prepare-stack-trace",
  description: "hostile case: walks CallSites from Error.prepareStackTrace",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    let sites: CallSite[] = [];
    const E = Error as unknown as { prepareStackTrace?: (e: unknown, s: CallSite[]) => unknown };
    E.prepareStackTrace = (_error, callSites) => {
      sites = callSites;
      return "captured";
    };
    void new Error("probe").stack;
    delete E.prepareStackTrace;
    let process = false;
    const hostPaths: string[] = [];
    for (const site of sites) {
      for (const value of [site.getThis(), site.getFunction()]) {
        if (value !== null && value !== undefined) {
          try {
            const ctor = (value as { constructor?: { constructor?: FunctionConstructor } }).constructor?.constructor;
            if (typeof ctor === "function" && ctor("return typeof process")() !== "undefined") process = true;
          } catch {
            // a frame whose constructor cannot be read finds nothing either
          }
        }
      }
      const file = site.getFileName();
      if (typeof file === "string" && (file.startsWith("/") || file.startsWith("node:") || file.startsWith("file:"))) hostPaths.push(file);
    }
    return { process, hostPaths };
  },
});
