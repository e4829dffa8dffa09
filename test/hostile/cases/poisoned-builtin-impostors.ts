// attempts: objects dressed up as built-ins (Date, Map, RegExp prototypes,
// a Symbol.toStringTag of "Date") hoping the writer trusts the disguise and
// calls their methods.
// expect: ok
// expect-output: {"date":{},"map":{},"regexp":{},"tagged":{"x":1}}
// A correct writer recognises built-ins by their internal slots only.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-builtin-impostors",
  description: "hostile case: fake built-ins",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return {
      date: Object.create(Date.prototype) as object,
      map: Object.create(Map.prototype) as object,
      regexp: Object.create(RegExp.prototype) as object,
      tagged: { x: 1, [Symbol.toStringTag]: "Date" },
    };
  },
});
