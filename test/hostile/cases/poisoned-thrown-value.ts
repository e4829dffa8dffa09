// attempts: throw whatever value its input describes (the property test in
// poisoned-results.test.ts feeds it fast-check's random values: primitives,
// symbols, BigInt, sparse arrays, Maps, null-prototype objects, boxed values,
// Errors with non-string fields, objects with throwing getters, Proxies with
// throwing traps). The default input throws an object whose getters throw.
// expect: tool_error
// A correct runtime turns any thrown value into a plain string message.
import { defineTool } from "corral";
import { z } from "zod";

type Spec = { t: string; [key: string]: unknown };

const boom = (): never => {
  throw new Error("hostile getter");
};

function rebuild(spec: Spec): unknown {
  switch (spec.t) {
    case "undefined":
      return undefined;
    case "json":
      return spec.v;
    case "number":
      return Number(spec.v);
    case "bigint":
      return BigInt(spec.v as string);
    case "symbol":
      return spec.v === null ? Symbol() : Symbol(spec.v as string);
    case "function":
      return { [spec.name as string]: () => undefined }[spec.name as string];
    case "date":
      return new Date(spec.v === null ? Number.NaN : (spec.v as number));
    case "boxed":
      return Object(rebuild(spec.v as Spec)) as unknown;
    case "array": {
      const array: unknown[] = [];
      array.length = spec.length as number;
      for (const [index, item] of spec.items as [number, Spec][]) array[index] = rebuild(item);
      return array;
    }
    case "object": {
      const object: Record<string, unknown> = spec.nullProto === true ? Object.create(null) : {};
      for (const [key, item] of spec.entries as [string, Spec][]) {
        Object.defineProperty(object, key, { value: rebuild(item), enumerable: true, writable: true, configurable: true });
      }
      return object;
    }
    case "map":
      return new Map((spec.entries as [Spec, Spec][]).map(([k, v]) => [rebuild(k), rebuild(v)]));
    case "set":
      return new Set((spec.items as Spec[]).map(rebuild));
    case "typed": {
      const Ctor = (globalThis as unknown as Record<string, new (items: unknown[]) => unknown>)[spec.ctor as string]!;
      const big = (spec.ctor as string).startsWith("Big");
      return new Ctor((spec.items as string[]).map((item) => (big ? BigInt(item) : Number(item))));
    }
    case "error": {
      const error = new Error("replaced below");
      Object.defineProperty(error, "name", { value: rebuild(spec.name as Spec), configurable: true });
      Object.defineProperty(error, "message", { value: rebuild(spec.message as Spec), configurable: true });
      return error;
    }
    case "throwing": {
      const object = {};
      for (const key of spec.keys as string[]) Object.defineProperty(object, key, { get: boom, enumerable: true });
      return object;
    }
    case "proxy":
      return new Proxy(rebuild(spec.target as Spec) as object, { get: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, has: boom });
    default:
      throw new Error(`unknown spec ${spec.t}`);
  }
}

export default defineTool({
  name: "poisoned-thrown-value",
  description: "hostile case: throws a described value",
  input: z.object({ spec: z.string().default('{"t":"throwing","keys":["name","message","stack"]}') }),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run({ spec }) {
    throw rebuild(JSON.parse(spec) as Spec);
  },
});
