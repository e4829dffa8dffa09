// attempts: a Proxy that answers every key with a fresh Proxy like itself,
// so the result has no bottom.
// expect: output_too_large
// A correct host stops at its depth budget.
import { defineTool } from "corral";
import { z } from "zod";

function bottomless(): object {
  return new Proxy(
    {},
    {
      ownKeys: () => ["deeper"],
      getOwnPropertyDescriptor: () => ({ value: undefined, enumerable: true, configurable: true, writable: true }),
      get: (_target, key) => (key === "deeper" ? bottomless() : undefined),
    },
  );
}

export default defineTool({
  name: "poisoned-proxy-bottomless",
  description: "hostile case: bottomless Proxy",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return bottomless();
  },
});
