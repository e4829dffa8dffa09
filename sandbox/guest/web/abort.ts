/**
 * @module sandbox/guest/web/abort
 * `Event`, `EventTarget` (event-target-shim, a maintained WHATWG
 * implementation) and `AbortController`/`AbortSignal` on top of them, with
 * today's additions (`reason`, `throwIfAborted`, `AbortSignal.abort`,
 * `.timeout`, `.any`). `timeout` uses the guest's own setTimeout, so it lives
 * only as long as the call, like every guest timer.
 */
import { Event, EventTarget } from "event-target-shim";
import { DOMException } from "./dom-exception.js";
import { intrinsics as I } from "../intrinsics.js";

export { Event, EventTarget };

// Only AbortController (and the static factories) may make a signal.
let constructing = false;
const abortSteps = new WeakMap<AbortSignal, (reason: unknown) => void>();

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  onabort: ((event: InstanceType<typeof Event>) => void) | null = null;

  constructor() {
    if (!constructing) throw new TypeError("Illegal constructor");
    super();
    constructing = false;
    abortSteps.set(this, (reason) => this.#abort(reason));
  }

  get aborted(): boolean {
    return this.#aborted;
  }
  get reason(): unknown {
    return this.#reason;
  }
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    const event = new Event("abort");
    if (typeof this.onabort === "function") this.onabort.call(this, event);
    this.dispatchEvent(event);
  }

  static abort(reason?: unknown): AbortSignal {
    const signal = newSignal();
    abortSteps.get(signal)?.(reason);
    return signal;
  }

  static timeout(delayMs: number): AbortSignal {
    const signal = newSignal();
    const ms = Number(delayMs);
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('The "delay" argument must be a non-negative finite number');
    const schedule = (globalThis as { setTimeout?: (fn: () => void, ms: number) => unknown }).setTimeout;
    schedule?.(() => abortSteps.get(signal)?.(new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms);
    return signal;
  }

  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const signal = newSignal();
    const abort = abortSteps.get(signal) as (reason: unknown) => void;
    for (const source of signals) {
      if (!(source instanceof AbortSignal)) throw new TypeError("AbortSignal.any takes AbortSignals only");
      if (source.aborted) {
        abort(source.reason);
        return signal;
      }
    }
    for (const source of signals) source.addEventListener("abort", () => abort(source.reason), { once: true });
    return signal;
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
    abortSteps.get(this.#signal)?.(reason);
  }
}
I.ObjectDefineProperty(AbortController.prototype, Symbol.toStringTag, { __proto__: null, value: "AbortController", configurable: true } as PropertyDescriptor);
