// attempts: reject with a Proxy whose every trap throws, so that describing
// the rejection runs hostile code at each step.
// expect: tool_error
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "async-reject-hostile",
  description: "hostile case: rejection with a hostile object",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  async run() {
    await null;
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("get trap");
        },
        ownKeys() {
          throw new Error("ownKeys trap");
        },
        getOwnPropertyDescriptor() {
          throw new Error("descriptor trap");
        },
        has() {
          throw new Error("has trap");
        },
      },
    );
    throw hostile;
  },
});
