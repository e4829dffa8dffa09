// attempts: throw an object whose `message` getter loops for ever, so the
// loop runs while the runtime describes the error.
// expect: timeout
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "cpu-error-message-loop",
  description: "hostile case: message getter that never returns",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 500, memoryMb: 32 },
  run() {
    throw {
      get message(): string {
        for (;;) {
          // spin
        }
      },
    };
  },
});
