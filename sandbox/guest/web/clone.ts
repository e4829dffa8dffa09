/**
 * @module sandbox/guest/web/clone
 * `structuredClone` after HTML's StructuredSerialize/Deserialize, in one
 * walk: primitives as they are (`-0` stays `-0`), wrapper objects, Date,
 * RegExp, ArrayBuffer (copied once however many views share it: views come
 * back on one buffer, at their offsets), typed arrays and DataView, Map,
 * Set, the standard Error types (name, message, `cause`, stack), arrays
 * (length, holes and extra properties kept), Blob and File, and ordinary
 * objects (own enumerable string keys, read with their getters); cycles and
 * shared references keep their shape. A function, symbol, WeakMap, WeakSet,
 * WeakRef, FinalizationRegistry or Promise throws a DataCloneError.
 * Written here, not taken from @ungap/structured-clone (which loses `-0`,
 * holes, `cause` and shared buffers). A SharedArrayBuffer comes back as
 * itself (its memory stays shared). `transfer` takes ArrayBuffers, once
 * each and not detached already: the clone gets their contents and they are
 * detached after (with ArrayBuffer.prototype.transfer; Node 20's V8 has it
 * behind a flag the worker sets, src/pool/sandbox-pool.ts).
 */
import { DOMException } from "./dom-exception.js";
import { Blob, blobBytes, File } from "./blob.js";

const ERROR_TYPES: Record<string, ErrorConstructor> = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
const TYPED_ARRAYS: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
};
// Float16Array is the engine's from V8 13.x (Node 24 and later), not Node 20's or 22's.
const Float16 = (globalThis as { Float16Array?: (typeof TYPED_ARRAYS)[string] }).Float16Array;
if (typeof Float16 === "function") TYPED_ARRAYS.Float16Array = Float16;
const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)?.get as (this: unknown) => string | undefined;

function refuse(what: string): never {
  throw new DOMException(`${what} could not be cloned.`, "DataCloneError");
}

/** Brand checks (a tool's Symbol.toStringTag cannot lie to these). */
function isA(value: object, check: (this: unknown, ...args: never[]) => unknown, ...args: unknown[]): boolean {
  try {
    (check as (...a: unknown[]) => unknown).apply(value, args);
    return true;
  } catch {
    return false;
  }
}

function cloneValue(value: unknown, memo: Map<object, unknown>): unknown {
  if (typeof value === "symbol") refuse("Symbol()");
  if (typeof value === "function") refuse(`function ${(value as { name?: string }).name ?? ""}`);
  if (typeof value !== "object" || value === null) return value;
  if (memo.has(value)) return memo.get(value);
  const keep = <T>(copy: T): T => (memo.set(value, copy), copy);

  if (Array.isArray(value)) {
    const copy = keep(new Array(value.length));
    for (const key of Object.keys(value)) copy[key as unknown as number] = cloneValue((value as unknown as Record<string, unknown>)[key], memo);
    return copy;
  }
  if (isA(value, Date.prototype.getTime)) return keep(new Date(Date.prototype.getTime.call(value)));
  if (isA(value, Object.getOwnPropertyDescriptor(RegExp.prototype, "source")?.get as () => unknown) && value !== RegExp.prototype) {
    const re = value as RegExp;
    return keep(new RegExp(re.source, re.flags));
  }
  if (value instanceof ArrayBuffer) return keep(value.slice(0));
  if (typeof SharedArrayBuffer === "function" && value instanceof SharedArrayBuffer) return keep(value);
  const tag = typedArrayTag.call(value);
  if (tag !== undefined) {
    const view = value as unknown as { buffer: ArrayBuffer; byteOffset: number; length: number };
    const buffer = cloneValue(view.buffer, memo) as ArrayBuffer;
    return keep(new (TYPED_ARRAYS[tag] as (typeof TYPED_ARRAYS)[string])(buffer, view.byteOffset, view.length));
  }
  if (isA(value, Object.getOwnPropertyDescriptor(DataView.prototype, "byteLength")?.get as () => unknown) && value !== DataView.prototype) {
    const view = value as DataView;
    return keep(new DataView(cloneValue(view.buffer, memo) as ArrayBuffer, view.byteOffset, view.byteLength));
  }
  if (isA(value, Map.prototype.has, undefined)) {
    const copy = keep(new Map());
    for (const [k, v] of Map.prototype.entries.call(value)) copy.set(cloneValue(k, memo), cloneValue(v, memo));
    return copy;
  }
  if (isA(value, Set.prototype.has, undefined)) {
    const copy = keep(new Set());
    for (const v of Set.prototype.values.call(value)) copy.add(cloneValue(v, memo));
    return copy;
  }
  if (isA(value, Boolean.prototype.valueOf)) return keep(Object(Boolean.prototype.valueOf.call(value)));
  if (isA(value, Number.prototype.valueOf)) return keep(Object(Number.prototype.valueOf.call(value)));
  if (isA(value, String.prototype.valueOf)) return keep(Object(String.prototype.valueOf.call(value)));
  if (isA(value, BigInt.prototype.valueOf)) return keep(Object(BigInt.prototype.valueOf.call(value)));
  const bytes = blobBytes(value);
  if (bytes !== undefined) {
    const blob = value as Blob;
    return keep(blob instanceof File ? new File([bytes], blob.name, { type: blob.type, lastModified: blob.lastModified }) : new Blob([bytes], { type: blob.type }));
  }
  if (value instanceof DOMException) return keep(new DOMException(value.message, value.name));
  if (value instanceof Error) return cloneError(value, memo, keep);
  if (isA(value, WeakMap.prototype.has, {}) || isA(value, WeakSet.prototype.has, {})) refuse("#<WeakMap>");
  if (typeof WeakRef === "function" && isA(value, WeakRef.prototype.deref)) refuse("#<WeakRef>");
  if (value instanceof Promise) refuse("#<Promise>");
  const copy = keep({} as Record<string, unknown>);
  for (const key of Object.keys(value)) copy[key] = cloneValue((value as Record<string, unknown>)[key], memo);
  return copy;
}

function cloneError(error: Error, memo: Map<object, unknown>, keep: <T>(copy: T) => T): Error {
  const name = String(error.name);
  const Type = Object.hasOwn(ERROR_TYPES, name) ? (ERROR_TYPES[name] as ErrorConstructor) : Error;
  const message = Object.getOwnPropertyDescriptor(error, "message");
  const copy = keep(new Type(message !== undefined && "value" in message ? String(message.value) : ""));
  if (message === undefined) delete (copy as { message?: string }).message;
  if (typeof error.stack === "string") Object.defineProperty(copy, "stack", { value: error.stack, writable: true, configurable: true });
  const cause = Object.getOwnPropertyDescriptor(error, "cause");
  if (cause !== undefined && "value" in cause) {
    Object.defineProperty(copy, "cause", { value: cloneValue(cause.value, memo), writable: true, configurable: true });
  }
  return copy;
}

export function structuredClone<T>(value: T, options?: { transfer?: Iterable<unknown> }): T {
  if (arguments.length === 0) throw new TypeError('The "value" argument must be specified');
  if (options !== undefined && options !== null && typeof options !== "object") throw new TypeError('The "options" argument must be of type object');
  const transfer = options?.transfer;
  if (transfer !== undefined) {
    const seen = new Set<unknown>();
    for (const item of transfer) {
      if (!(item instanceof ArrayBuffer)) throw new DOMException("Value not transferable", "DataCloneError");
      if (seen.has(item)) throw new DOMException("ArrayBuffer is transferred more than once", "DataCloneError");
      if ((item as { detached?: boolean }).detached === true) throw new DOMException("An ArrayBuffer is detached and could not be cloned", "DataCloneError");
      seen.add(item);
    }
    const clone = cloneValue(value, new Map()) as T;
    // HTML detaches the transferred buffers once the whole value is serialized (views over them were read whole first).
    for (const item of seen) (item as { transfer?: (length: number) => ArrayBuffer }).transfer?.(0);
    return clone;
  }
  return cloneValue(value, new Map()) as T;
}
