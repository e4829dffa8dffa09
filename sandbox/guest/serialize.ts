/**
 * @module sandbox/guest/serialize
 * Turns whatever a tool returned into JSON text of plain data, inside the
 * isolate and under the call's limits. Getters, Proxy traps and toJSON run
 * here, where the call's timeout and memory limit still hold; the text that
 * leaves is bounded by `maxBytes` before it is ever copied out.
 *
 * The writer never calls JSON.stringify on objects (that would consult a
 * tool-supplied `toJSON` on Object.prototype at a moment we do not choose);
 * it walks the value itself and uses JSON.stringify only on primitives.
 *
 * Conversions: functions → "[Function name]", Map → [[k, v], ...], Set →
 * [...], Date → ISO text, BigInt → decimal text, symbols → "Symbol(desc)",
 * cycles → "[Circular]", NaN and ±Infinity → null, undefined → omitted in
 * objects and null in arrays, class instances → their own enumerable data.
 * With `plainOnly` (a Code Mode script's result: data for a model), a
 * function, symbol or BigInt at any depth is refused instead (NotPlainData,
 * naming where it is), the same rule at the top as inside.
 */
import { intrinsics as I } from "./intrinsics.js";
import { markSignal } from "./signals.js";

export type SerializeBudget = {
  /** Upper bound on the text's length, counted in UTF-16 code units. */
  maxBytes: number;
  maxDepth: number;
  /** Refuse a function, symbol or BigInt at any depth (NotPlainData) rather than convert it. */
  plainOnly?: boolean;
};

/** Thrown by the writer when the value does not fit its budget. */
export class OutputTooLarge {
  constructor(readonly reason: string) {
    markSignal(this);
  }
}

/** Thrown by the writer in `plainOnly` mode: `type` is what it met, `path` the keys and indexes to it from the top. */
export class NotPlainData {
  constructor(
    readonly type: string,
    readonly path: readonly (string | number)[],
  ) {
    markSignal(this);
  }
}

const FUNCTION_NAME_MAX = 100;

export function serialize(value: unknown, budget: SerializeBudget): string {
  const ancestors = new I.Set<object>();
  const plainOnly = budget.plainOnly === true;
  /** In plainOnly mode: `path[d]` is the key or index being written at depth d. */
  const path: (string | number)[] = [];
  let out = "";

  function refuse(type: string, depth: number): never {
    const where: (string | number)[] = [];
    for (let i = 0; i < depth; i++) I.arrayPush(where, path[i] as string | number);
    throw new NotPlainData(type, where);
  }

  function emit(text: string): void {
    if (out.length + text.length > budget.maxBytes) {
      throw new OutputTooLarge(`the result is larger than ${budget.maxBytes} bytes`);
    }
    out += text;
  }

  function emitString(s: string): void {
    // A cheap lower bound first: a huge string is refused before it is escaped.
    if (out.length + s.length + 2 > budget.maxBytes) {
      throw new OutputTooLarge(`the result is larger than ${budget.maxBytes} bytes`);
    }
    emit(I.JSONStringify(s));
  }

  function write(v: unknown, depth: number, inArray: boolean): boolean {
    switch (typeof v) {
      case "string":
        emitString(v);
        return true;
      case "number":
        emit(I.NumberIsFinite(v) ? I.JSONStringify(v === 0 ? 0 : v) : "null");
        return true;
      case "boolean":
        emit(v ? "true" : "false");
        return true;
      case "bigint":
      case "symbol":
        if (plainOnly) refuse(typeof v, depth);
        emitString(I.String(v));
        return true;
      case "undefined":
        if (inArray) emit("null");
        return inArray;
      case "function":
        if (plainOnly) refuse("function", depth);
        emitString(functionText(v));
        return true;
      case "object":
        if (v === null) {
          emit("null");
          return true;
        }
        return writeObject(v, depth);
    }
    emit("null");
    return true;
  }

  function writeObject(v: object, depth: number): boolean {
    if (I.setHas(ancestors, v)) {
      emitString("[Circular]");
      return true;
    }
    if (depth >= budget.maxDepth) {
      throw new OutputTooLarge(`the result is nested deeper than ${budget.maxDepth} levels`);
    }
    // The original stays on the ancestor list while its replacement (a Map's
    // entries, say) is written, so a Map that contains itself is a cycle too.
    I.setAdd(ancestors, v);
    try {
      const special = specialForm(v, budget.maxBytes - out.length);
      if (typeof special === "string") emitString(special);
      else {
        const target = special === NOT_SPECIAL ? v : special;
        if (I.ArrayIsArray(target)) writeArray(target as unknown[], depth);
        else writeRecord(target, depth);
      }
    } finally {
      I.setDelete(ancestors, v);
    }
    return true;
  }

  function writeArray(array: unknown[], depth: number): void {
    emit("[");
    const length = array.length;
    for (let i = 0; i < length; i++) {
      if (i > 0) emit(",");
      if (plainOnly) path[depth] = i;
      write(array[i], depth + 1, true);
    }
    emit("]");
  }

  function writeRecord(record: object, depth: number): void {
    emit("{");
    const keys = I.ObjectKeys(record);
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const item = (record as Record<string, unknown>)[key];
      if (item === undefined) continue;
      const mark = out.length;
      emit(first ? "" : ",");
      emitString(key);
      emit(":");
      if (plainOnly) path[depth] = key;
      if (write(item, depth + 1, false)) first = false;
      else out = I.stringSlice(out, 0, mark);
    }
    emit("}");
  }

  write(value, 0, true);
  return out;
}

const NOT_SPECIAL: unique symbol = Symbol("not special");

/**
 * Recognises built-ins by their internal slots (the captured getters throw for
 * impostors), so a tool cannot dress an object up as a Date or a Map.
 * Answers a string for leaf forms, or the plain array or record to write in
 * the value's place. Plain objects and arrays, by far the most common, leave
 * at once: a failed brand check throws, and throwing costs microseconds.
 */
function specialForm(v: object, room: number): string | object | typeof NOT_SPECIAL {
  // A collection is copied into an array before it is written: refuse one
  // that cannot fit first (each item takes at least two characters), so a
  // huge typed array or Map costs no copy at all.
  const fits = (items: number) => {
    if (items * 2 > room) throw new OutputTooLarge(`the result is larger than the output limit (a collection of ${items} items)`);
  };
  const proto = I.ObjectGetPrototypeOf(v);
  if (proto === I.ObjectPrototype || proto === null || I.ArrayIsArray(v)) return NOT_SPECIAL;
  if (v instanceof I.Date) {
    try {
      const time = I.dateGetTime(v);
      return time === time ? I.dateToISOString(v) : "Invalid Date";
    } catch {}
  }
  if (v instanceof I.Map) {
    const entries = collectionItems(v, I.mapSize, fits, (items) =>
      I.mapForEach(v as Map<unknown, unknown>, (value, key) => {
        I.arrayPush(items, [key, value]);
      }),
    );
    if (entries !== undefined) return entries;
  }
  if (v instanceof I.Set) {
    const items = collectionItems(v, I.setSize, fits, (into) =>
      I.setForEach(v as Set<unknown>, (value) => {
        I.arrayPush(into, value);
      }),
    );
    if (items !== undefined) return items;
  }
  if (v instanceof I.RegExp) {
    try {
      return `/${I.regExpSource(v)}/${I.regExpFlags(v)}`;
    } catch {}
  }
  if (I.ArrayBufferIsView(v)) {
    let length: number;
    try {
      length = I.typedArrayLength(v);
    } catch {
      return "[DataView]";
    }
    fits(length);
    {
      const items: unknown[] = [];
      const view = v as unknown as ArrayLike<unknown>;
      for (let i = 0; i < length; i++) I.arrayPush(items, view[i]);
      return items;
    }
  }
  if (v instanceof I.ArrayBuffer) {
    try {
      return `[ArrayBuffer ${I.arrayBufferByteLength(v)} bytes]`;
    } catch {}
  }
  if (v instanceof I.Error) {
    const record = I.ObjectCreate(null) as Record<string, unknown>;
    const { name, message } = v as { name: unknown; message: unknown };
    record.name = typeof name === "string" ? name : "Error";
    record.message = typeof message === "string" ? message : "";
    return record;
  }
  if (v instanceof I.Promise) return "[Promise]";
  return NOT_SPECIAL;
}

/**
 * A Map's or a Set's items as a plain array, or undefined when `v` is not
 * really one: `sizeOf` is the captured `size` getter, which throws for an
 * impostor (an object made from Map.prototype, a Proxy). The size is checked
 * against the room left before anything is copied; `copyInto` pushes the
 * items with the captured forEach, never the collection's own methods.
 */
function collectionItems(
  v: object,
  sizeOf: (value: unknown) => number,
  fits: (items: number) => void,
  copyInto: (items: unknown[]) => void,
): unknown[] | undefined {
  let size: number | undefined;
  try {
    size = sizeOf(v);
  } catch {}
  if (size === undefined) return undefined;
  fits(size);
  const items: unknown[] = [];
  copyInto(items);
  return items;
}

function functionText(fn: Function): string {
  let name: unknown;
  try {
    name = fn.name;
  } catch {
    name = undefined;
  }
  if (typeof name !== "string" || name === "") return "[Function (anonymous)]";
  return `[Function ${I.stringSlice(name, 0, FUNCTION_NAME_MAX)}]`;
}
