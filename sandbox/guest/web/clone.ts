/**
 * @module sandbox/guest/web/clone
 * `structuredClone` from @ungap/structured-clone (serialize + deserialize:
 * cycles, Map, Set, Date, RegExp, typed arrays, errors, BigInt). A value it
 * cannot clone (a function, a symbol) throws a `DataCloneError`, as in Node.
 * `transfer` is accepted and ignored: nothing in an isolate can be detached.
 */
import { serialize, deserialize } from "@ungap/structured-clone";
import { DOMException } from "./dom-exception.js";

export function structuredClone<T>(value: T, _options?: { transfer?: unknown[] }): T {
  if (arguments.length === 0) throw new TypeError('The "value" argument must be specified');
  let records: unknown;
  try {
    records = serialize(value);
  } catch (error) {
    throw new DOMException(`${String((error as Error)?.message ?? error)} could not be cloned.`, "DataCloneError");
  }
  return deserialize(records) as T;
}
