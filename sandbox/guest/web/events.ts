/**
 * @module sandbox/guest/web/events
 * DOM events for tools: `Event`, `EventTarget` (event-target-shim, a
 * maintained WHATWG implementation), `CustomEvent`, `ErrorEvent`, and the
 * global scope's own event target (`addEventListener`, `removeEventListener`,
 * `dispatchEvent` on globalThis) with `reportError`, which dispatches a
 * cancelable "error" ErrorEvent there and, if no listener cancels it, writes
 * the error to the tool's console. A listener that throws is reported the
 * same way (as in browsers), never thrown at the dispatcher. The events the
 * platform dispatches (reportError's, an AbortSignal's) are trusted
 * (`markTrusted`, added to the shim at build time: scripts/trusted-events.mjs).
 */
import { Event as ShimEvent, EventTarget, markTrusted, setErrorHandler } from "event-target-shim";
import { intrinsics as I } from "../intrinsics.js";

export { EventTarget, markTrusted };

// WebIDL: AddEventListenerOptions' `signal` is an AbortSignal, not nullable: null (or a primitive) is a TypeError.
const shimAddEventListener = EventTarget.prototype.addEventListener;
const checkedMethods = {
  addEventListener(this: EventTarget, type: string, listener: unknown): void {
    const options: unknown = arguments[2];
    if (typeof options === "object" && options !== null && "signal" in options) {
      const signal = (options as { signal: unknown }).signal;
      if (signal !== undefined && (typeof signal !== "object" || signal === null)) {
        throw new TypeError("Failed to execute 'addEventListener' on 'EventTarget': member signal is not of type 'AbortSignal'.");
      }
    }
    I.apply(shimAddEventListener, this, arguments as unknown as unknown[]);
  },
};
I.ObjectDefineProperty(EventTarget.prototype, "addEventListener", { __proto__: null, value: checkedMethods.addEventListener, writable: true, enumerable: true, configurable: true } as PropertyDescriptor);

type EventInit = { bubbles?: boolean; cancelable?: boolean; composed?: boolean };

function tag(target: { prototype: object }, name: string): void {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}

/** DOM's Event: its `type` argument is required (WebIDL), unlike the shim's. */
export class Event extends ShimEvent {
  constructor(type: string, init?: EventInit) {
    if (arguments.length === 0) throw new TypeError("Failed to construct 'Event': 1 argument required, but only 0 present.");
    super(String(type), init ?? undefined);
  }
}
tag(Event, "Event");

export class CustomEvent<T = unknown> extends Event {
  #detail: unknown;
  constructor(type: string, init?: EventInit & { detail?: T }) {
    if (arguments.length === 0) throw new TypeError("Failed to construct 'CustomEvent': 1 argument required, but only 0 present.");
    super(type, init);
    this.#detail = init?.detail ?? null;
  }
  get detail(): T {
    return this.#detail as T;
  }
  initCustomEvent(type: string, bubbles = false, cancelable = false, detail: unknown = null): void {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'initCustomEvent': 1 argument required, but only 0 present.");
    this.initEvent(type, bubbles, cancelable);
    this.#detail = detail;
  }
}
tag(CustomEvent, "CustomEvent");

type ErrorEventInit = EventInit & { message?: string; filename?: string; lineno?: number; colno?: number; error?: unknown };

export class ErrorEvent extends Event {
  readonly #init: { message: string; filename: string; lineno: number; colno: number; error: unknown };
  constructor(type: string, init?: ErrorEventInit) {
    if (arguments.length === 0) throw new TypeError("Failed to construct 'ErrorEvent': 1 argument required, but only 0 present.");
    super(type, init);
    this.#init = {
      message: init?.message === undefined ? "" : String(init.message),
      filename: init?.filename === undefined ? "" : String(init.filename),
      lineno: (init?.lineno ?? 0) >>> 0,
      colno: (init?.colno ?? 0) >>> 0,
      error: init?.error,
    };
  }
  get message(): string {
    return this.#init.message;
  }
  get filename(): string {
    return this.#init.filename;
  }
  get lineno(): number {
    return this.#init.lineno;
  }
  get colno(): number {
    return this.#init.colno;
  }
  get error(): unknown {
    return this.#init.error;
  }
}
tag(ErrorEvent, "ErrorEvent");

/** Where an error nobody cancelled goes: the tool's own console, captured by the runtime. */
export type ErrorSink = (error: unknown) => void;

function messageOf(error: unknown): string {
  try {
    if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
    return String(error);
  } catch {
    return "";
  }
}

type LooseTarget = {
  addEventListener(type: string, listener: unknown, options?: unknown): void;
  removeEventListener(type: string, listener: unknown, options?: unknown): void;
  dispatchEvent(event: unknown): boolean;
};

/** The global scope's event target and reportError, writing uncancelled errors to `sink`. */
export function createGlobalEvents(sink: ErrorSink) {
  const globalTarget = new EventTarget();
  let reporting = false;
  function reportError(error: unknown): void {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'reportError': 1 argument required, but only 0 present.");
    // An "error" listener that throws is not reported again (HTML's "report an exception" does not recurse).
    if (reporting) return sink(error);
    reporting = true;
    let notCancelled = true;
    try {
      notCancelled = globalTarget.dispatchEvent(markTrusted(new ErrorEvent("error", { cancelable: true, message: messageOf(error), error })));
    } finally {
      reporting = false;
    }
    if (notCancelled) sink(error);
  }
  setErrorHandler((error) => reportError(error));
  const target = globalTarget as unknown as LooseTarget;
  return {
    addEventListener: (type: string, listener: unknown, options?: unknown) => target.addEventListener(type, listener, options),
    removeEventListener: (type: string, listener: unknown, options?: unknown) => target.removeEventListener(type, listener, options),
    dispatchEvent: (event: unknown) => target.dispatchEvent(event),
    reportError,
  };
}
