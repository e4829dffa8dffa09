// attempts: return a Proxy whose traps inspect whatever the host hands them
// while it reads the result (target, receiver, the callers' stack) looking
// for a host object.
// expect: ok
// expect-output: {"a":"undefined"}
// A correct host reads results inside the isolate only: the traps see
// isolate objects and the host never runs them.
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "escape-proxy-traps",
  description: "hostile case: Proxy traps probing their callers",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const probe = (value: unknown): string => {
      try {
        const ctor = (value as { constructor?: { constructor?: FunctionConstructor } }).constructor?.constructor;
        return typeof ctor === "function" ? (ctor("return typeof process")() as string) : "none";
      } catch {
        return "threw";
      }
    };
    return new Proxy(
      { a: 1 },
      {
        get(target, key, receiver) {
          if (key !== "a") return Reflect.get(target, key, receiver);
          // The receiver is the proxy itself: probe its prototype, not its
          // properties, or the probe would re-enter this trap.
          const seen = [probe(target), probe(Reflect.getPrototypeOf(receiver as object))];
          return seen.every((s) => s === "undefined") ? "undefined" : seen.join(",");
        },
      },
    );
  },
});
