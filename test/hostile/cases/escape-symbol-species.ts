// attempts: the vm2 escape through Symbol.species: make Array and Promise
// methods (the tool's own, and the runtime's await of the result) build
// objects with a constructor the tool controls, and inspect the arguments
// that constructor receives for a host object.
// expect: ok
// expect-output: {"array":"undefined","promise":"undefined"}
// A correct host's runtime lives in the isolate; the species constructor only
// ever receives isolate objects.
import { defineTool } from "corral";
import { z } from "zod";

function probe(value: unknown): string {
  try {
    const ctor = (value as { constructor?: { constructor?: FunctionConstructor } }).constructor?.constructor;
    return typeof ctor === "function" ? (ctor("return typeof process")() as string) : "none";
  } catch {
    return "threw";
  }
}

export default defineTool({
  name: "escape-symbol-species",
  description: "hostile case: Symbol.species",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  async run() {
    let arraySeen = "not called";
    class EvilArray extends Array {
      static get [Symbol.species]() {
        return function (this: unknown, ...args: unknown[]) {
          arraySeen = probe(args) === "undefined" && probe(this) === "undefined" ? "undefined" : "leak";
          return [];
        };
      }
    }
    EvilArray.from([1, 2, 3]).map((x) => x);
    let promiseSeen = "not called";
    class EvilPromise<T> extends Promise<T> {
      static override get [Symbol.species]() {
        return function (executor: (resolve: unknown, reject: unknown) => void) {
          let found = "none";
          executor(
            (value: unknown) => {
              found = probe(value);
            },
            () => {},
          );
          promiseSeen = found === "none" || found === "undefined" ? "undefined" : "leak";
          return Promise.resolve();
        } as unknown as PromiseConstructor;
      }
    }
    await EvilPromise.resolve(1).then((x) => x);
    return { array: arraySeen, promise: promiseSeen };
  },
});
