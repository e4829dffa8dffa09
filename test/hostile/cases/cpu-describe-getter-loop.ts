// attempts: a tool whose declared `limits` object has a getter that loops,
// so the loop runs while the host asks the module to describe its tools.
// expect-load: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-describe-getter-loop",
  description: "hostile case: getter loop during describe",
  input: z.object({}),
  effects: [],
  limits: {
    get timeoutMs(): number {
      for (;;) {
        // spin while the manifest is written
      }
    },
  },
  run() {
    return "unreachable";
  },
});
