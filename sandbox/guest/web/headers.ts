/**
 * @module sandbox/guest/web/headers
 * `Headers` after the Fetch standard: names checked as HTTP tokens and kept
 * lower-case, values trimmed of HTTP whitespace and refused with NUL, CR or
 * LF or any character above U+00FF (a ByteString), repeated names combined
 * with ", " (except `set-cookie`, kept apart for `getSetCookie`), iteration
 * sorted by name and live (each step reads the list as it is then, as
 * WebIDL's pair iterators do). A Headers may be immutable (`Response.error()`'s):
 * then every change throws a TypeError.
 */
import { intrinsics as I } from "../intrinsics.js";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\r\n\u0100-\uffff]/;

function checkName(name: unknown): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Header name must be a valid HTTP token ["${text}"]`);
  return text.toLowerCase();
}

function normaliseValue(name: string, value: unknown): string {
  const text = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (BAD_VALUE.test(text)) throw new TypeError(`Invalid value for header "${name}"`);
  return text;
}

export type HeadersInit = Headers | Iterable<Iterable<string>> | Record<string, string>;

const IMMUTABLE = new WeakSet<object>();

/** Makes `headers` immutable (the Fetch standard's "immutable" guard). */
export function makeImmutable(headers: Headers): Headers {
  IMMUTABLE.add(headers);
  return headers;
}

/** WebIDL's ByteString: a string with no code unit above U+00FF. */
function byteString(text: string): string {
  if (/[\u0100-\uffff]/.test(text)) throw new TypeError(`Failed to construct 'Headers': ${JSON.stringify(text)} is not a valid ByteString`);
  return text;
}

/** WebIDL's record<ByteString, ByteString> conversion: own keys in order, enumerable ones only, each read once. */
function fillFromRecord(headers: Headers, init: object): void {
  // The whole record is converted before the headers are filled (and names checked).
  const pairs: [string, string][] = [];
  for (const key of Reflect.ownKeys(init)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(init, key);
    if (descriptor === undefined || !descriptor.enumerable) continue;
    if (typeof key === "symbol") throw new TypeError("Failed to construct 'Headers': a record's key cannot be a Symbol");
    const name = byteString(key);
    pairs.push([name, byteString(String((init as Record<string, unknown>)[key]))]);
  }
  for (const [name, value] of pairs) headers.append(name, value);
}

/** A Headers' sorted, combined list (set in the class's static block: its private field stays private). */
let pairsOf: (headers: Headers) => [string, string][];

export class Headers {
  readonly #values = new Map<string, string[]>();

  // A rest parameter: WebIDL's optional argument does not count in `length` (Headers.length is 0).
  constructor(...args: [init?: HeadersInit]) {
    const init = args[0];
    if (init === undefined) return;
    if ((typeof init !== "object" && typeof init !== "function") || init === null) {
      throw new TypeError("Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'");
    }
    // WebIDL's union: an object with an @@iterator (read once) is a sequence, iterated with that method; any other a record.
    const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    if (iterator === undefined || iterator === null) {
      fillFromRecord(this, init);
      return;
    }
    if (typeof iterator !== "function") throw new TypeError("Failed to construct 'Headers': @@iterator is not callable");
    const pairs = { [Symbol.iterator]: () => I.apply(iterator, init, []) as Iterator<Iterable<string>> };
    for (const pair of pairs as Iterable<Iterable<string>>) {
      if ((typeof pair !== "object" && typeof pair !== "function") || pair === null) throw new TypeError("Failed to construct 'Headers': each header pair must be a sequence");
      const entry = [...pair];
      if (entry.length !== 2) throw new TypeError("Failed to construct 'Headers': each header pair must be an iterable [name, value] tuple");
      this.append(entry[0] as string, entry[1] as string);
    }
  }

  append(name: string, value: string): void {
    this.#mutable();
    const key = checkName(name);
    const list = this.#values.get(key);
    const text = normaliseValue(key, value);
    if (list === undefined) this.#values.set(key, [text]);
    else list.push(text);
  }
  set(name: string, value: string): void {
    this.#mutable();
    const key = checkName(name);
    this.#values.set(key, [normaliseValue(key, value)]);
  }
  delete(name: string): void {
    this.#mutable();
    this.#values.delete(checkName(name));
  }
  #mutable(): void {
    if (IMMUTABLE.has(this)) throw new TypeError("Headers are immutable");
  }
  get(name: string): string | null {
    const list = this.#values.get(checkName(name));
    return list === undefined ? null : list.join(", ");
  }
  has(name: string): boolean {
    return this.#values.has(checkName(name));
  }
  getSetCookie(): string[] {
    return [...(this.#values.get("set-cookie") ?? [])];
  }
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }
  /** The sorted and combined list, as it is now. */
  #pairs(): [string, string][] {
    const pairs: [string, string][] = [];
    for (const name of [...this.#values.keys()].sort()) {
      const list = this.#values.get(name) ?? [];
      if (name === "set-cookie") for (const value of list) pairs.push([name, value]);
      else pairs.push([name, list.join(", ")]);
    }
    return pairs;
  }
  entries(): IterableIterator<[string, string]> {
    return headersIterator(this, "entries");
  }
  keys(): IterableIterator<string> {
    return headersIterator(this, "keys");
  }
  values(): IterableIterator<string> {
    return headersIterator(this, "values");
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return headersIterator(this, "entries");
  }
  static {
    pairsOf = (headers) => headers.#pairs();
  }
}

type IteratorState = { headers: Headers; kind: "entries" | "keys" | "values"; index: number };
const ITERATORS = new WeakMap<object, IteratorState>();

// WebIDL's "Headers Iterator" prototype: its [[Prototype]] is %IteratorPrototype%, `next` an enumerable operation.
const ITERATOR_PROTOTYPE: object = I.ObjectCreate(I.ObjectGetPrototypeOf(I.ObjectGetPrototypeOf([][Symbol.iterator]())));
const iteratorMethods = {
  next(): IteratorResult<unknown> {
    const state = ITERATORS.get(this as object);
    if (state === undefined) throw new TypeError("next called on an object that is not a Headers iterator");
    // The list as it is now: WebIDL's pair iterators are live.
    const pair = pairsOf(state.headers)[state.index];
    if (pair === undefined) return { value: undefined, done: true };
    state.index++;
    return { value: state.kind === "keys" ? pair[0] : state.kind === "values" ? pair[1] : pair, done: false };
  },
};
I.ObjectDefineProperty(ITERATOR_PROTOTYPE, "next", { __proto__: null, value: iteratorMethods.next, writable: true, enumerable: true, configurable: true } as PropertyDescriptor);
I.ObjectDefineProperty(ITERATOR_PROTOTYPE, Symbol.toStringTag, { __proto__: null, value: "Headers Iterator", configurable: true } as PropertyDescriptor);

function headersIterator<T>(headers: Headers, kind: IteratorState["kind"]): IterableIterator<T> {
  const iterator = I.ObjectCreate(ITERATOR_PROTOTYPE) as IterableIterator<T>;
  ITERATORS.set(iterator, { headers, kind, index: 0 });
  return iterator;
}
I.ObjectDefineProperty(Headers.prototype, Symbol.toStringTag, { __proto__: null, value: "Headers", configurable: true } as PropertyDescriptor);
