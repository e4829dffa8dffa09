// attempts: recurse to the edge of the stack and, in the deepest frame, call into the
// runtime (console.log, setTimeout, clearTimeout, JSON) so that its code
// overflows half-way, catching every overflow; then use a timer and answer.
// expect: ok
// expect-output: survived
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "crash-stack-overflow-everywhere",
  description: "hostile case: crash-stack-overflow-everywhere",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  async run() {
    // The deepest frame that catches an overflow calls into the runtime, which
    // then overflows somewhere inside its own code. `pad` shifts where the
    // edge falls, so the overflow lands at many different points.
    let overflows = 0;
    const atTheEdge = (): void => {
      try {
        console.log("at the edge", { overflows });
        clearTimeout(setTimeout(() => {}, 1000));
        queueMicrotask(() => {});
        JSON.stringify({ overflows });
      } catch {
        overflows++;
      }
    };
    const dive = (): void => {
      try {
        dive();
      } catch {
        atTheEdge();
      }
    };
    const pad = (n: number): void => (n === 0 ? dive() : pad(n - 1));
    for (let n = 0; n < 30; n++) pad(n);
    // The runtime must still work: a timer fires and the call answers.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return overflows > 0 ? "survived" : "the runtime never overflowed";
  },
});
