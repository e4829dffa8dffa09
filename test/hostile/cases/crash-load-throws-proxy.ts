// attempts: throw, at module top level, a Proxy whose getPrototypeOf trap
// throws: any `instanceof` the runtime makes on it while reporting the
// failed load runs the trap.
// expect-load: compile_error
// A module that throws while loading is refused as a compile_error (the
// tool's fault, found before any call), not a crash of the sandbox.
import { defineTool } from "corral";
import { z } from "zod";

throw new Proxy(new Error("top level"), {
  getPrototypeOf() {
    throw new Error("getPrototypeOf trap");
  },
});

export default defineTool({
  name: "crash-load-throws-proxy",
  description: "hostile case: hostile throw at load",
  input: z.object({}),
  effects: [],
  run() {
    return "unreachable";
  },
});
