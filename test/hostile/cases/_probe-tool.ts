// Not a case: a benign tool from another source that reports whether its own
// environment looks polluted. The contamination runner calls it after each
// polluting case.
import { defineTool } from "corral";
import { z } from "zod";
import { environmentReport } from "./_environment-probe.ts";

export default defineTool({
  name: "environment-probe",
  description: "reports whether the built-ins of its own context look polluted",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    return environmentReport();
  },
});
