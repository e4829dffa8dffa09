// attempts: throw a Proxy whose getPrototypeOf trap throws: any `instanceof`
// check the runtime makes on the thrown value runs the trap.
// expect: tool_error
// A correct runtime never lets a throw escape invoke: this is the tool's own
// error, not a crash of the sandbox (a crash is a strike and disposes the
// isolate).
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-reject-getprototypeof",
  description: "hostile case: thrown Proxy with a throwing getPrototypeOf",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    throw new Proxy(new Error("wrapped"), {
      getPrototypeOf() {
        throw new Error("getPrototypeOf trap");
      },
    });
  },
});
