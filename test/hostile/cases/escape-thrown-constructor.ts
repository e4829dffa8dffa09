// attempts: the vm2 family of escapes through thrown objects: catch errors
// raised by the runtime (setTimeout's checks, the timer cap), by V8 (stack
// overflow) and by a failed module load, and climb their constructors.
// expect: ok
// expect-output: ["undefined","undefined","undefined"]
// A correct host creates every error the tool can catch inside the isolate.
import { defineTool } from "corral";
import { z } from "zod";

function climb(error: unknown): string {
  const ctor = (error as { constructor: { constructor: FunctionConstructor } }).constructor.constructor;
  return ctor("return typeof process")() as string;
}

export default defineTool({
  name: "escape-thrown-constructor",
  description: "hostile case: constructors of caught errors",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const found: string[] = [];
    try {
      setTimeout(42 as unknown as () => void, 1);
    } catch (error) {
      found.push(climb(error));
    }
    try {
      for (let i = 0; i < 2000; i++) setTimeout(() => {}, 100_000);
    } catch (error) {
      found.push(climb(error));
    }
    const recurse = (): number => recurse() + 1;
    try {
      recurse();
    } catch (error) {
      found.push(climb(error));
    }
    return found;
  },
});
