// attempts: reach the module wrapper's `require` through direct eval (the
// import policy refuses require("fs") in the source), then load "fs".
// expect: tool_error
// expect-message: module "fs" is not available inside a tool
// A correct host's require knows only "corral" and "zod".
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-indirect-require",
  description: "hostile case: eval('require')('fs')",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const name = ["f", "s"].join("");
    const req = eval("typeof require === 'function' ? require : undefined") as ((id: string) => unknown) | undefined;
    if (req === undefined) return "no require in scope";
    const fs = req(name) as { readFileSync?: unknown };
    return typeof fs.readFileSync;
  },
});
