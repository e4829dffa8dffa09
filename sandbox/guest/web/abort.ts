/**
 * @module sandbox/guest/web/abort
 * `AbortController` and `AbortSignal` after the DOM standard, on the events
 * of ./events.ts: `reason`, `throwIfAborted`, `onabort` as an event handler
 * (called in listener order, with `event.target` set), `AbortSignal.abort`,
 * `.timeout` and `.any`. A signal made by `any` is dependent: it follows the
 * non-dependent sources directly, and when a source aborts every dependent
 * is marked aborted before any abort event fires. `timeout` uses the guest's
 * own setTimeout, so it lives only as long as the call, like every guest
 * timer.
 */
import { getEventAttributeValue, setEventAttributeValue } from "event-target-shim";
import { DOMException } from "./dom-exception.js";
import { Event, EventTarget, markTrusted } from "./events.js";
import { intrinsics as I } from "../intrinsics.js";

export { Event, EventTarget };

type Handler = ((this: AbortSignal, event: Event) => unknown) | null;

// Only AbortController (and the static factories) may make a signal.
let constructing = false;
type Internals = {
  aborted: boolean;
  reason: unknown;
  dependent: boolean;
  sources: Set<AbortSignal>;
  dependents: Set<AbortSignal>;
};
const internals = new WeakMap<AbortSignal, Internals>();

function state(signal: AbortSignal): Internals {
  const found = internals.get(signal);
  if (found === undefined) throw new TypeError("Illegal invocation: not an AbortSignal");
  return found;
}

/** DOM's "signal abort": mark this signal and its dependents aborted, then fire abort on each, in that order. */
function signalAbort(signal: AbortSignal, reason: unknown): void {
  const own = state(signal);
  if (own.aborted) return;
  own.aborted = true;
  own.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
  const toFire: AbortSignal[] = [];
  for (const dependent of own.dependents) {
    const theirs = state(dependent);
    if (theirs.aborted) continue;
    theirs.aborted = true;
    theirs.reason = own.reason;
    toFire.push(dependent);
  }
  own.dependents.clear();
  signal.dispatchEvent(markTrusted(new Event("abort")));
  for (const dependent of toFire) dependent.dispatchEvent(markTrusted(new Event("abort")));
}

export class AbortSignal extends EventTarget {
  constructor() {
    if (!constructing) throw new TypeError("Illegal constructor");
    super();
    constructing = false;
    internals.set(this, { aborted: false, reason: undefined, dependent: false, sources: new Set(), dependents: new Set() });
  }

  get aborted(): boolean {
    return state(this).aborted;
  }
  get reason(): unknown {
    return state(this).reason;
  }
  get onabort(): Handler {
    state(this);
    return getEventAttributeValue(this, "abort") as Handler;
  }
  set onabort(value: Handler) {
    state(this);
    setEventAttributeValue(this, "abort", typeof value === "function" || (typeof value === "object" && value !== null) ? (value as never) : null);
  }
  throwIfAborted(): void {
    const own = state(this);
    if (own.aborted) throw own.reason;
  }

  static abort(reason?: unknown): AbortSignal {
    const signal = newSignal();
    const own = state(signal);
    own.aborted = true;
    own.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    return signal;
  }

  static timeout(delayMs: number): AbortSignal {
    const ms = Number(delayMs);
    if (!Number.isFinite(ms) || ms < 0 || ms > Number.MAX_SAFE_INTEGER) throw new TypeError('The "delay" argument must be a non-negative finite number');
    const signal = newSignal();
    const schedule = (globalThis as { setTimeout?: (fn: () => void, ms: number) => unknown }).setTimeout;
    schedule?.(() => signalAbort(signal, new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms);
    return signal;
  }

  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const list: AbortSignal[] = [];
    for (const source of signals as Iterable<unknown>) {
      if (!internals.has(source as AbortSignal)) throw new TypeError("AbortSignal.any takes AbortSignals only");
      list.push(source as AbortSignal);
    }
    const result = newSignal();
    const own = state(result);
    for (const source of list) {
      const theirs = state(source);
      if (theirs.aborted) {
        own.aborted = true;
        own.reason = theirs.reason;
        return result;
      }
    }
    own.dependent = true;
    for (const source of list) {
      const theirs = state(source);
      const roots = theirs.dependent ? theirs.sources : [source];
      for (const root of roots) {
        own.sources.add(root);
        state(root).dependents.add(result);
      }
    }
    return result;
  }
}
I.ObjectDefineProperty(AbortSignal.prototype, Symbol.toStringTag, { __proto__: null, value: "AbortSignal", configurable: true } as PropertyDescriptor);

function newSignal(): AbortSignal {
  constructing = true;
  try {
    return new AbortSignal();
  } finally {
    constructing = false;
  }
}

export class AbortController {
  readonly #signal = newSignal();
  get signal(): AbortSignal {
    return this.#signal;
  }
  abort(reason?: unknown): void {
    signalAbort(this.#signal, reason);
  }
}
I.ObjectDefineProperty(AbortController.prototype, Symbol.toStringTag, { __proto__: null, value: "AbortController", configurable: true } as PropertyDescriptor);
