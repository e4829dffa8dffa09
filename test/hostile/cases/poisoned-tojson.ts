// attempts: a toJSON method on the result (and on a nested value) that would
// replace the data if anything called it.
// expect: ok
// expect-output: {"a":1,"toJSON":"[Function toJSON]","inner":{"b":2,"toJSON":"[Function toJSON]"}}
// corral's writer never calls toJSON: the result is the tool's own data.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-tojson",
  description: "hostile case: toJSON on the result",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return {
      a: 1,
      toJSON() {
        return "replaced";
      },
      inner: {
        b: 2,
        toJSON() {
          throw new Error("toJSON must not run");
        },
      },
    };
  },
});
