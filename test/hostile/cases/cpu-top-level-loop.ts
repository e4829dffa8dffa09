// attempts: an infinite loop at module top level, so the module never loads.
// expect-load: timeout
// A correct host runs the top level under the load limit and refuses the module.
import { defineTool } from "corral";
import { z } from "zod";

for (;;) {
  // spin before any tool is defined
}

export default defineTool({
  name: "cpu-top-level-loop",
  description: "hostile case: top-level loop",
  input: z.object({}),
  effects: [],
  run() {
    return "unreachable";
  },
});
