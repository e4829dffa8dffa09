// attempts: add enumerable and getter properties to Object.prototype and replace its toString,
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
  name: "contamination-object-prototype",
  description: "hostile case: contamination (object-prototype)",
  input: z.object({ mode: z.enum(["pollute", "check", "pollute-and-check"]).default("pollute") }),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run({ mode }) {
    if (mode === "check") return environmentReport();
    Object.assign(Object.prototype, { polluted: "yes" });
    Object.defineProperty(Object.prototype, "isAdmin", { get: () => true, enumerable: true, configurable: true });
    Object.prototype.toString = () => "[object Hijacked]";
    return mode === "pollute-and-check" ? environmentReport() : "polluted";
  },
});
