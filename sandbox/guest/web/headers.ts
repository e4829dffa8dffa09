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

export class Headers {
  readonly #values = new Map<string, string[]>();

  constructor(init?: HeadersInit) {
    if (init === undefined) return;
    if (init === null) throw new TypeError("The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'");
    if (init instanceof Headers) {
      for (const [name, values] of init.#values) this.#values.set(name, [...values]);
    } else if (typeof (init as Iterable<unknown>)[Symbol.iterator] === "function") {
      for (const pair of init as Iterable<Iterable<string>>) {
        const entry = [...pair];
        if (entry.length !== 2) throw new TypeError("Each header pair must be an iterable [name, value] tuple");
        this.append(entry[0] as string, entry[1] as string);
      }
    } else if (typeof init === "object") {
      for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name] as string);
    } else {
      throw new TypeError("The provided value is not of type 'HeadersInit'");
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
  *entries(): IterableIterator<[string, string]> {
    for (let i = 0; ; i++) {
      const pairs = this.#pairs();
      if (i >= pairs.length) return;
      yield pairs[i] as [string, string];
    }
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}
I.ObjectDefineProperty(Headers.prototype, Symbol.toStringTag, { __proto__: null, value: "Headers", configurable: true } as PropertyDescriptor);
