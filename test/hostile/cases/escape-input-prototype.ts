// attempts: climb the prototype chain of the input value the host passed in
// (and of the ctx object) to a Function constructor of the host realm.
// expect: ok
// expect-output: {"input":"undefined","ctx":"undefined","sameRealm":true}
// A correct host passes plain data rebuilt inside the isolate: its prototypes
// are the isolate's own Object.prototype and the constructor finds nothing.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-input-prototype",
  description: "hostile case: input.constructor.constructor('return typeof process')()",
  input: z.object({ nested: z.object({ list: z.array(z.number()) }).default({ list: [1] }) }),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run(input, ctx) {
    const viaInput = (input.nested.list as unknown as { constructor: { constructor: FunctionConstructor } }).constructor
      .constructor("return typeof process")() as string;
    const viaCtx = (ctx as unknown as { constructor: { constructor: FunctionConstructor } }).constructor
      .constructor("return typeof process")() as string;
    const sameRealm = Object.getPrototypeOf(input) === Object.prototype && Object.getPrototypeOf(input.nested.list) === Array.prototype;
    return { input: viaInput, ctx: viaCtx, sameRealm };
  },
});
