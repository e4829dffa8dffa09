// attempts: compile a 7 MB regular expression of a million alternations, work V8 does
// natively without checking for termination.
// expect: memory|timeout
// The regexp compiler's memory is not the JS heap; the host's watch of the
// worker's resident memory must stop it, unless the compile is slow enough
// (a loaded machine) that its time limit passes first: both are strikes on
// this case's own source, and the worker is killed either way.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-huge-regexp",
  description: "hostile case: crash-huge-regexp",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 64 },
  run() {
    const pattern = new RegExp("(?:a|b)".repeat(1_000_000));
    return pattern.test("ab".repeat(10));
  },
});
