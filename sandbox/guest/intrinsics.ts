/**
 * @module sandbox/guest/intrinsics
 * The built-ins the guest runtime needs, captured when the runtime script
 * starts, before any tool code runs. A tool may replace `JSON.stringify`,
 * `Object.keys` or `Array.prototype.push` in its own context; the runtime
 * never consults the globals again, only these captured originals.
 */

const FERAL_REFLECT_APPLY = Reflect.apply;
const FERAL_FUNCTION_CALL = Function.prototype.call;

/** Turns a method into a function taking `this` first, immune to later tampering. */
function uncurryThis<T, A extends unknown[], R>(method: (this: T, ...args: A) => R): (self: T, ...args: A) => R {
  return (self: T, ...args: A) => FERAL_REFLECT_APPLY(method, self, args);
}

function getterOf(prototype: object, key: PropertyKey): (self: unknown) => unknown {
  const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
  const get = descriptor?.get;
  if (get === undefined) throw new Error(`corral runtime: no getter ${String(key)}`);
  return uncurryThis(get as (this: unknown) => unknown);
}

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;

const FERAL_PROMISE = Promise;
const FERAL_DEFINE_PROPERTY = Object.defineProperty;
const FERAL_PROMISE_THEN = Promise.prototype.then;
const FERAL_PROMISE_PROTOTYPE = Promise.prototype;
const FERAL_GET_PROTOTYPE_OF = Object.getPrototypeOf;
/**
 * Every descriptor the runtime hands to defineProperty has no prototype: a
 * plain `{ value }` inherits a tool's `Object.prototype.get`, and
 * defineProperty then throws (a value and an accessor), which left a
 * waiting call unsettled until its time limit, a false timeout strike.
 */
const NO_CONSTRUCTOR = Object.freeze({ __proto__: null, value: undefined }) as PropertyDescriptor;

/**
 * A promise of the runtime's own, immune to a replaced Promise.prototype.then,
 * `constructor` or Symbol.species: its own `constructor` is undefined, so
 * `then` (captured) makes its derived promise with the original Promise.
 */
function ownPromise<T>(executor: (resolve: (value: T | PromiseLike<T>) => void, reject: (reason: unknown) => void) => void): Promise<T> {
  const promise = new FERAL_PROMISE<T>(executor);
  FERAL_DEFINE_PROPERTY(promise, "constructor", NO_CONSTRUCTOR);
  return promise;
}

/** `then` on a promise the runtime made with ownPromise (never on a tool's: that would run its getters here). */
function ownThen<T>(promise: Promise<T>, onFulfilled: (value: T) => unknown, onRejected: (reason: unknown) => unknown): void {
  FERAL_REFLECT_APPLY(FERAL_PROMISE_THEN, promise, [onFulfilled, onRejected]);
}

/** Whether `value` claims to be a promise of the engine's: its prototype, read as data (no tool code runs for an ordinary object). */
function isPromiseShaped(value: unknown): boolean {
  return typeof value === "object" && value !== null && FERAL_GET_PROTOTYPE_OF(value) === FERAL_PROMISE_PROTOTYPE;
}

/**
 * Subscribes to a promise a tool made, reading nothing of it the tool could
 * have replaced since: not `then`, not `constructor`, not Symbol.species
 * (its own `constructor` is made undefined first, so the captured `then`
 * derives its promise with the original Promise). False, having subscribed
 * nothing, for anything but a real, extensible promise: the caller then
 * follows it as a thenable (tool code).
 */
function followPromise<T>(value: unknown, onFulfilled: (value: T) => unknown, onRejected: (reason: unknown) => unknown): boolean {
  if (!isPromiseShaped(value)) return false;
  try {
    // The attributes ownPromise gives its own, so redefining one of those is no change (and no throw).
    FERAL_DEFINE_PROPERTY(value, "constructor", NO_CONSTRUCTOR);
    FERAL_REFLECT_APPLY(FERAL_PROMISE_THEN, value, [onFulfilled, onRejected]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Follows what a tool (or a script) handed back to settle: a real promise by
 * followPromise, anything else through a promise of the runtime's own
 * (resolving it with a thenable runs that thenable's `then`, as tool code).
 */
function follow<T>(value: unknown, onFulfilled: (value: T) => unknown, onRejected: (reason: unknown) => unknown): void {
  if (!followPromise(value, onFulfilled, onRejected)) ownThen(ownPromise<T>((resolve) => resolve(value as T)), onFulfilled, onRejected);
}

export const intrinsics = Object.freeze({
  apply: FERAL_REFLECT_APPLY,
  call: FERAL_FUNCTION_CALL,
  ObjectKeys: Object.keys,
  ObjectFreeze: Object.freeze,
  ObjectCreate: Object.create,
  ObjectDefineProperty: Object.defineProperty,
  ObjectGetPrototypeOf: Object.getPrototypeOf,
  ObjectSetPrototypeOf: Object.setPrototypeOf,
  ReflectConstruct: Reflect.construct,
  ObjectPrototype: Object.prototype,
  hasOwn: Object.hasOwn,
  ArrayIsArray: Array.isArray,
  ArrayBufferIsView: ArrayBuffer.isView,
  JSONStringify: JSON.stringify,
  JSONParse: JSON.parse,
  String: String,
  NumberIsFinite: Number.isFinite,
  MathMin: Math.min,
  MathMax: Math.max,
  Infinity: Infinity,
  DateNow: Date.now,
  Promise: FERAL_PROMISE,
  ownPromise,
  ownThen,
  isPromiseShaped,
  follow,
  RangeErrorPrototype: RangeError.prototype,
  ObjectGetOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
  Map: Map,
  Date: Date,
  RegExp: RegExp,
  ArrayBuffer: ArrayBuffer,
  mapGet: uncurryThis(Map.prototype.get) as <K, V>(map: Map<K, V>, key: K) => V | undefined,
  mapSet: uncurryThis(Map.prototype.set) as <K, V>(map: Map<K, V>, key: K, value: V) => Map<K, V>,
  mapDelete: uncurryThis(Map.prototype.delete) as <K, V>(map: Map<K, V>, key: K) => boolean,
  mapClear: uncurryThis(Map.prototype.clear) as <K, V>(map: Map<K, V>) => void,
  mapForEach: uncurryThis(Map.prototype.forEach) as (
    map: Map<unknown, unknown>,
    fn: (value: unknown, key: unknown) => void,
  ) => void,
  /** Throws for anything that is not a real Map: a brand check. */
  mapSize: getterOf(Map.prototype, "size") as (value: unknown) => number,
  setForEach: uncurryThis(Set.prototype.forEach) as (set: Set<unknown>, fn: (value: unknown) => void) => void,
  setSize: getterOf(Set.prototype, "size") as (value: unknown) => number,
  Set: Set,
  WeakSet: WeakSet,
  weakSetAdd: uncurryThis(WeakSet.prototype.add) as <T extends object>(set: WeakSet<T>, value: T) => WeakSet<T>,
  weakSetHas: uncurryThis(WeakSet.prototype.has) as <T extends object>(set: WeakSet<T>, value: T) => boolean,
  setAdd: uncurryThis(Set.prototype.add) as <T>(set: Set<T>, value: T) => Set<T>,
  setHas: uncurryThis(Set.prototype.has) as <T>(set: Set<T>, value: T) => boolean,
  setDelete: uncurryThis(Set.prototype.delete) as <T>(set: Set<T>, value: T) => boolean,
  /** Throws for anything that is not a real Date. */
  dateGetTime: uncurryThis(Date.prototype.getTime) as (value: unknown) => number,
  dateToISOString: uncurryThis(Date.prototype.toISOString) as (value: unknown) => string,
  regExpSource: getterOf(RegExp.prototype, "source") as (value: unknown) => string,
  regExpFlags: getterOf(RegExp.prototype, "flags") as (value: unknown) => string,
  typedArrayLength: getterOf(TypedArrayPrototype, "length") as (value: unknown) => number,
  arrayBufferByteLength: getterOf(ArrayBuffer.prototype, "byteLength") as (value: unknown) => number,
  stringSlice: uncurryThis(String.prototype.slice) as (s: string, start: number, end?: number) => string,
  stringIndexOf: uncurryThis(String.prototype.indexOf) as (s: string, search: string, from?: number) => number,
  arrayPush: uncurryThis(Array.prototype.push) as <T>(array: T[], ...items: T[]) => number,
  arrayJoin: uncurryThis(Array.prototype.join) as (array: unknown[], separator: string) => string,
  Error: Error,
  TypeError: TypeError,
  RangeError: RangeError,
});
