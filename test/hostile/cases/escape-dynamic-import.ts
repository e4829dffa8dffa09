// attempts: vm2 CVE-2021-23449 (fixed in 3.9.4): dynamic import() with a computed specifier, which the import
// policy cannot see at compile time.
// expect: tool_error
// A correct host has no module loader in the isolate: the import fails and
// the tool's run rejects → tool_error.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-dynamic-import",
  description: "hostile case: import(computed)",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  async run() {
    const specifier = ["node", "fs"].join(":");
    const fs = (await import(specifier)) as { readFileSync?: unknown };
    return typeof fs.readFileSync;
  },
});
