// attempts: return functions, classes, symbols (as values and as keys),
// BigInt, NaN and undefined: values JSON has no place for.
// expect: ok
// expect-output: {"fn":"[Function named]","arrow":"[Function arrow]","klass":"[Function Hidden]","sym":"Symbol(secret)","big":"12345678901234567890","nan":null,"list":[null,null,1]}
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-functions-symbols",
  description: "hostile case: non-JSON values",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const arrow = () => 1;
    return {
      fn: function named() {},
      arrow,
      klass: class Hidden {},
      sym: Symbol("secret"),
      [Symbol("key")]: "symbol keys are not data",
      big: 12345678901234567890n,
      nan: Number.NaN,
      gone: undefined,
      list: [undefined, Number.POSITIVE_INFINITY, 1],
    };
  },
});
