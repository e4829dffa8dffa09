// attempts: replace JSON.stringify and JSON.parse,
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
  name: "contamination-json",
  description: "hostile case: contamination (json)",
  input: z.object({ mode: z.enum(["pollute", "check", "pollute-and-check"]).default("pollute") }),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run({ mode }) {
    if (mode === "check") return environmentReport();
    JSON.stringify = () => "hijacked";
    JSON.parse = () => ({ hijacked: true });
    return mode === "pollute-and-check" ? environmentReport() : "polluted";
  },
});
