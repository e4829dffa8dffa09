// attempts: a tiny result made of shared references (a DAG) that expands to
// 2^40 leaves when written out as a tree.
// expect: output_too_large
// A correct host stops writing at its byte budget, inside the isolate.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "memory-dag-result",
  description: "hostile case: exponential DAG result",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  run() {
    let node: unknown = { leaf: "x" };
    for (let i = 0; i < 40; i++) node = { left: node, right: node };
    return node;
  },
});
