// attempts: leave values on the global object and replace setTimeout and Promise.prototype.then,
// then answer normally. Input { mode: "check" } reports the tool's own
// environment instead; "pollute-and-check" pollutes, then reports.
// expect: ok
// expect-output: polluted
// A correct host gives every tool its own context: another tool, and this
// tool's next call in a fresh isolate, see pristine built-ins; the runtime
// still writes this call's result with the intrinsics it captured.
import { defineTool } from "corral";
import { z } from "zod";
import { environmentReport } from "./_environment-probe.ts";

export default defineTool({
  name: "contamination-globalthis",
  description: "hostile case: contamination (globalthis)",
  input: z.object({ mode: z.enum(["pollute", "check", "pollute-and-check"]).default("pollute") }),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run({ mode }) {
    if (mode === "check") return environmentReport();
    const g = globalThis as Record<string, unknown>;
    g.leaked = "a secret another tool must not see";
    g.sharedSecret = 42;
    g.setTimeout = function hijacked() {
      throw new Error("hijacked");
    };
    Promise.prototype.then = function (this: Promise<unknown>) {
      return this;
    } as typeof Promise.prototype.then;
    return mode === "pollute-and-check" ? environmentReport() : "polluted";
  },
});
