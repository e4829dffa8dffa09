// attempts: climb `fn.caller` and `arguments.callee.caller` from a sloppy
// function called by the tool up through the runtime's frames, and look for
// process or require on the way.
// expect: ok
// expect-output: found nothing
// A correct host's callers are all isolate functions: nothing of Node's.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-caller-chain",
  description: "hostile case: Function.prototype.caller chain",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const climb = Function(`
      var found = [];
      var f = arguments.callee;
      for (var i = 0; i < 50 && f; i++) {
        try {
          var g = f.constructor && f.constructor.constructor;
          if (typeof g === "function" && g("return typeof process")() !== "undefined") found.push("process");
          if (typeof g === "function" && g("return typeof require")() !== "undefined") found.push("require");
          f = f.caller;
        } catch (e) { break; }
      }
      return found;
    `) as () => string[];
    const found = [climb(), [1].map(() => climb())[0] ?? []].flat();
    return found.length === 0 ? "found nothing" : found.join(",");
  },
});
