// attempts: read host file paths or Node internals from stack traces of
// errors thrown by the tool, by the runtime and by V8.
// expect: ok
// expect-output: clean
// A correct host shows only the tool's source id and corral:runtime.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-stack-paths",
  description: "hostile case: looks for host paths in stack traces",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const stacks: string[] = [String(new Error("own").stack)];
    try {
      setTimeout("not a function" as unknown as () => void, 1);
    } catch (error) {
      stacks.push(String((error as Error).stack));
    }
    try {
      (null as unknown as { x: number }).x;
    } catch (error) {
      stacks.push(String((error as Error).stack));
    }
    const leaks = stacks.filter((s) => /\/work\/|\/home\/|node:internal|node_modules|dist\/sandbox|file:\/\//.test(s));
    return leaks.length === 0 ? "clean" : `leaked: ${leaks.join(" | ")}`;
  },
});
