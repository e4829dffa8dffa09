/**
 * @module test/hostile/thrown-values
 * Random values for a tool to throw: fast-check's `anything` plus hostile
 * shapes (Errors with non-string fields, objects with throwing getters,
 * Proxies with throwing traps), and the JSON description the tool
 * cases/poisoned-thrown-value.ts rebuilds them from inside its isolate.
 */
import fc from "fast-check";
import { anyValue } from "../helpers/any-value.js";

export class HostileError {
  constructor(
    readonly name: unknown,
    readonly message: unknown,
  ) {}
}
export class ThrowingGetters {
  constructor(readonly keys: string[]) {}
}
export class HostileProxy {
  constructor(readonly target: object) {}
}

type Spec = { t: string; [key: string]: unknown };

const TYPED_ARRAYS = [
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array,
];

export function describeValue(value: unknown): Spec {
  switch (typeof value) {
    case "undefined":
      return { t: "undefined" };
    case "boolean":
    case "string":
      return { t: "json", v: value };
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? { t: "json", v: value } : { t: "number", v: Object.is(value, -0) ? "-0" : String(value) };
    case "bigint":
      return { t: "bigint", v: value.toString() };
    case "symbol":
      return { t: "symbol", v: value.description ?? null };
    case "function":
      return { t: "function", name: value.name };
  }
  if (value === null) return { t: "json", v: null };
  if (value instanceof HostileError) return { t: "error", name: describeValue(value.name), message: describeValue(value.message) };
  if (value instanceof ThrowingGetters) return { t: "throwing", keys: value.keys };
  if (value instanceof HostileProxy) return { t: "proxy", target: describeValue(value.target) };
  if (value instanceof Date) {
    const time = value.getTime();
    return { t: "date", v: Number.isNaN(time) ? null : time };
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return { t: "boxed", v: describeValue(value.valueOf()) };
  if (value instanceof Map) return { t: "map", entries: [...value].map(([k, v]) => [describeValue(k), describeValue(v)]) };
  if (value instanceof Set) return { t: "set", items: [...value].map(describeValue) };
  const typed = TYPED_ARRAYS.find((Ctor) => value instanceof Ctor);
  if (typed !== undefined) {
    return { t: "typed", ctor: typed.name, items: Array.from(value as ArrayLike<number | bigint>, (item) => String(item)) };
  }
  if (Array.isArray(value)) {
    const items = Object.keys(value).map((key) => [Number(key), describeValue(value[Number(key)])]);
    return { t: "array", length: value.length, items };
  }
  const object = value as Record<string, unknown>;
  return {
    t: "object",
    nullProto: Object.getPrototypeOf(object) === null,
    entries: Object.keys(object).map((key) => [key, describeValue(object[key])]),
  };
}

const anything = anyValue({ maxDepth: 3, maxKeys: 5 });

/** Values a tool may throw: anything, and the hostile shapes above. */
export const thrownValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anything },
  { weight: 1, arbitrary: fc.tuple(anything, anything).map(([name, message]) => new HostileError(name, message)) },
  {
    weight: 1,
    arbitrary: fc
      .subarray(["name", "message", "stack", "toString", "valueOf", "cause", "then"], { minLength: 1 })
      .map((keys) => new ThrowingGetters(keys)),
  },
  { weight: 1, arbitrary: fc.oneof(fc.object(), fc.array(fc.integer())).map((target) => new HostileProxy(target)) },
);
