/**
 * @module sandbox/guest/web/dom-exception
 * `DOMException` after WebIDL, for the isolate: a bare V8 context has none,
 * and atob, crypto, AbortSignal and structuredClone throw it in Node and
 * browsers. Instances are Errors (as in Node) with a stack; `name`,
 * `message` and `code` are accessors on the prototype that check their
 * receiver, and the legacy constants (`INDEX_SIZE_ERR` ... `DATA_CLONE_ERR`)
 * sit on both the constructor and the prototype. The second argument may be
 * a name or, as in Node, `{ name, cause }`.
 */
import { intrinsics as I } from "../intrinsics.js";

/** WebIDL's table: each legacy name, its constant and its code. */
const LEGACY: readonly (readonly [string, string, number])[] = [
  ["IndexSizeError", "INDEX_SIZE_ERR", 1],
  ["", "DOMSTRING_SIZE_ERR", 2],
  ["HierarchyRequestError", "HIERARCHY_REQUEST_ERR", 3],
  ["WrongDocumentError", "WRONG_DOCUMENT_ERR", 4],
  ["InvalidCharacterError", "INVALID_CHARACTER_ERR", 5],
  ["", "NO_DATA_ALLOWED_ERR", 6],
  ["NoModificationAllowedError", "NO_MODIFICATION_ALLOWED_ERR", 7],
  ["NotFoundError", "NOT_FOUND_ERR", 8],
  ["NotSupportedError", "NOT_SUPPORTED_ERR", 9],
  ["InUseAttributeError", "INUSE_ATTRIBUTE_ERR", 10],
  ["InvalidStateError", "INVALID_STATE_ERR", 11],
  ["SyntaxError", "SYNTAX_ERR", 12],
  ["InvalidModificationError", "INVALID_MODIFICATION_ERR", 13],
  ["NamespaceError", "NAMESPACE_ERR", 14],
  ["InvalidAccessError", "INVALID_ACCESS_ERR", 15],
  ["", "VALIDATION_ERR", 16],
  ["TypeMismatchError", "TYPE_MISMATCH_ERR", 17],
  ["SecurityError", "SECURITY_ERR", 18],
  ["NetworkError", "NETWORK_ERR", 19],
  ["AbortError", "ABORT_ERR", 20],
  ["URLMismatchError", "URL_MISMATCH_ERR", 21],
  ["QuotaExceededError", "QUOTA_EXCEEDED_ERR", 22],
  ["TimeoutError", "TIMEOUT_ERR", 23],
  ["InvalidNodeTypeError", "INVALID_NODE_TYPE_ERR", 24],
  ["DataCloneError", "DATA_CLONE_ERR", 25],
];

const CODES: Record<string, number> = I.ObjectCreate(null);
for (const [name, , code] of LEGACY) if (name !== "") CODES[name] = code;

const captureStackTrace = (Error as { captureStackTrace?: (target: object) => void }).captureStackTrace;

export class DOMException extends Error {
  readonly #name: string;
  readonly #message: string;
  constructor(message: unknown = "", options: unknown = "Error") {
    super();
    this.#message = String(message);
    if (typeof options === "object" && options !== null) {
      const { name, cause } = options as { name?: unknown; cause?: unknown };
      this.#name = name === undefined ? "Error" : String(name);
      if ("cause" in options) I.ObjectDefineProperty(this, "cause", { __proto__: null, value: cause, writable: true, configurable: true } as PropertyDescriptor);
    } else this.#name = String(options);
    // The stack's first line is "<name>: <message>", read through the accessors now that they answer.
    captureStackTrace?.(this);
  }
  override get name(): string {
    return this.#name;
  }
  override get message(): string {
    return this.#message;
  }
  get code(): number {
    return CODES[this.#name] ?? 0;
  }
}

for (const key of ["name", "message", "code"]) {
  const descriptor = I.ObjectGetOwnPropertyDescriptor(DOMException.prototype, key) as PropertyDescriptor;
  I.ObjectDefineProperty(DOMException.prototype, key, { ...descriptor, enumerable: true });
}
for (const [, constant, code] of LEGACY) {
  const descriptor = { __proto__: null, value: code, writable: false, enumerable: true, configurable: false } as PropertyDescriptor;
  I.ObjectDefineProperty(DOMException, constant, descriptor);
  I.ObjectDefineProperty(DOMException.prototype, constant, descriptor);
}
I.ObjectDefineProperty(DOMException.prototype, Symbol.toStringTag, { __proto__: null, value: "DOMException", configurable: true } as PropertyDescriptor);
