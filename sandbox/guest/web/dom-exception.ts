/**
 * @module sandbox/guest/web/dom-exception
 * `DOMException` for the isolate: a bare V8 context has none, and atob,
 * crypto, AbortSignal and structuredClone throw it in Node and browsers.
 * Instances are Errors (as in Node) with the legacy numeric `code`.
 */
import { intrinsics as I } from "../intrinsics.js";

const LEGACY_CODES: Record<string, number> = {
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
};

export class DOMException extends Error {
  readonly #name: string;
  constructor(message = "", name = "Error") {
    super(String(message));
    this.#name = String(name);
  }
  override get name(): string {
    return this.#name;
  }
  get code(): number {
    return Object.hasOwn(LEGACY_CODES, this.#name) ? (LEGACY_CODES[this.#name] as number) : 0;
  }
}
I.ObjectDefineProperty(DOMException.prototype, Symbol.toStringTag, { __proto__: null, value: "DOMException", configurable: true } as PropertyDescriptor);
