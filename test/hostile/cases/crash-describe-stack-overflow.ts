// attempts: a tool whose declared limits object overflows the stack when
// read, so the runtime's describe step overflows while writing manifests.
// expect-load: compile_error
// expect-message: describing the tools failed
import { defineTool } from "corral";
import { z } from "zod";

const limits = {
  get timeoutMs(): number {
    return (limits as { timeoutMs: number }).timeoutMs;
  },
};

export default defineTool({
  name: "crash-describe-stack-overflow",
  description: "hostile case: stack overflow during describe",
  input: z.object({}),
  effects: [],
  limits,
  run() {
    return "unreachable";
  },
});
