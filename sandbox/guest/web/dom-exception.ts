/**
 * @module sandbox/guest/web/dom-exception
 * `DOMException` after WebIDL, for the isolate: a bare V8 context has none,
 * and atob, crypto, AbortSignal and structuredClone throw it in Node and
 * browsers. Instances are Errors (made by Error itself: its [[ErrorData]]
 * and a stack) whose prototype chain goes through DOMException.prototype to
 * Error.prototype, while the constructor, as WebIDL's interface objects do,
 * inherits from Function.prototype (a class that `extends Error` would
 * inherit from Error). `name`, `message` and `code` are accessors on the
 * prototype that check their receiver, and the legacy constants
 * (`INDEX_SIZE_ERR` ... `DATA_CLONE_ERR`) sit on both the constructor and
 * the prototype. The second argument may be
 * a name or, as in Node, `{ name, cause }`.
 */
import { intrinsics as I } from "../intrinsics.js";
import { enumerableAttributes } from "./idl-attributes.js";

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
const ErrorConstructor = Error;

/** Returns the object it is given from its constructor, so a subclass's private fields go onto any object (an Error made elsewhere). */
class Stamp {
  constructor(target: object) {
    return target;
  }
}

/** A DOMException's own state, as private fields on the Error that is the exception: reading them is the receiver check. */
class ExceptionFields extends Stamp {
  readonly #name: string;
  readonly #message: string;
  constructor(target: object, name: string, message: string) {
    super(target);
    this.#name = name;
    this.#message = message;
  }
  static nameOf(exception: unknown): string {
    return (exception as ExceptionFields).#name;
  }
  static messageOf(exception: unknown): string {
    return (exception as ExceptionFields).#message;
  }
}

export class DOMException {
  constructor(message: unknown = "", options: unknown = "Error") {
    const text = String(message);
    let name: string;
    let cause: { value: unknown } | undefined;
    if (typeof options === "object" && options !== null) {
      const given = options as { name?: unknown; cause?: unknown };
      name = given.name === undefined ? "Error" : String(given.name);
      if ("cause" in options) cause = { value: given.cause };
    } else name = String(options);
    const exception = I.ReflectConstruct(ErrorConstructor, [], new.target) as DOMException;
    new ExceptionFields(exception, name, text);
    if (cause !== undefined) I.ObjectDefineProperty(exception, "cause", { __proto__: null, value: cause.value, writable: true, configurable: true } as PropertyDescriptor);
    // The stack's first line is "<name>: <message>", read through the accessors now that they answer.
    captureStackTrace?.(exception);
    return exception;
  }
  get name(): string {
    return ExceptionFields.nameOf(this);
  }
  get message(): string {
    return ExceptionFields.messageOf(this);
  }
  get code(): number {
    return CODES[ExceptionFields.nameOf(this)] ?? 0;
  }
}
I.ObjectSetPrototypeOf(DOMException.prototype, ErrorConstructor.prototype);

enumerableAttributes(DOMException.prototype, ["name", "message", "code"]);
for (const [, constant, code] of LEGACY) {
  const descriptor = { __proto__: null, value: code, writable: false, enumerable: true, configurable: false } as PropertyDescriptor;
  I.ObjectDefineProperty(DOMException, constant, descriptor);
  I.ObjectDefineProperty(DOMException.prototype, constant, descriptor);
}
I.ObjectDefineProperty(DOMException.prototype, Symbol.toStringTag, { __proto__: null, value: "DOMException", configurable: true } as PropertyDescriptor);
