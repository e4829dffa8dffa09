// attempts: return a value whose toJSON returns itself, nested in a cycle.
// expect: ok
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "verdict-serializer-tojson-loop",
  description: "hostile case: serializer-tojson-loop",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 3000, memoryMb: 32 },
  run() {
    const a: Record<string, unknown> = { toJSON() { return a; } };
    a.self = a;
    return { a };
  },
});
