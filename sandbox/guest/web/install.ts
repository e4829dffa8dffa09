/**
 * @module sandbox/guest/web/install
 * Puts the web-standard globals on a tool's global object, in one call from
 * the guest runtime. Small ones are installed as values; the costly ones
 * (URL with its IDNA tables, streams, and the script of the rest built on
 * first use: events, fetch's classes, Blob, crypto, structuredClone,
 * performance ..., see ./lazy-bundle.ts) as lazy globals: an accessor that builds the value on first use
 * and replaces itself with a plain writable property, so a tool that never
 * touches them does not pay for them. A tool may overwrite any of them in
 * its own context; the runtime never reads them back. (queueMicrotask and
 * the timers come from ../timers.ts.) Each global gets its standard `name`
 * as it is defined (../standard-names.ts): the bundle's are minified. A lazy
 * global is built after tool code ran, so what defines it is captured here
 * and its descriptors have no prototype (a tool's Object.prototype.get or
 * replaced Object.defineProperty changes nothing).
 */
import { atob, btoa } from "./base64.js";
import { DOMException } from "./dom-exception.js";
import { TextDecoder, TextEncoder } from "./text-codec.js";
import type { RandomSource } from "./crypto.js";
import type { WebCryptoExchange } from "./subtle.js";
import type { WorkerExchange } from "./compression.js";
import { lazyWeb, setLazyLoader, type LazyLoader } from "./lazy.js";
import { loadUrl, loadUrlPattern, type UrlLoader } from "./url.js";
import { nameFunction } from "../standard-names.js";
import { createNavigator } from "./navigator.js";
import { setDecodeBridge, type DecodeBridge } from "./encodings.js";
import { setStreamsLoader, STREAM_GLOBALS, webStreams, type StreamsLoader } from "./streams.js";

const FERAL_DEFINE_PROPERTY = Object.defineProperty;

export type WebGlobalsOptions = {
  /** The worker's CSPRNG: `count` bytes as a binary string. */
  random: RandomSource;
  /** Sends a request the worker answers itself (Web Crypto, compression), through the capability relay. */
  askWorker: WorkerExchange;
  /** Runs the URL script (whatwg-url) in this context, on first use. */
  loadUrl: UrlLoader;
  /** Runs the script of the web globals built on first use (./lazy-bundle.ts) in this context. */
  loadWeb: LazyLoader;
  /** Runs the streams script (web-streams-polyfill) in this context, on first use. */
  loadStreams: StreamsLoader;
  /** The worker's TextDecoder for encodings beyond UTF-8. */
  decode: DecodeBridge;
  /** Where reportError (and a throwing event listener) writes an error no "error" listener cancelled: the tool's console. */
  reportToConsole: (error: unknown) => void;
};

function defineValue(target: object, name: string, value: unknown): void {
  FERAL_DEFINE_PROPERTY(target, name, { __proto__: null, value, writable: true, configurable: true, enumerable: false } as PropertyDescriptor);
}

/** A value of the runtime's, under its standard name (a tool's own value, written over a lazy global, is left as it is). */
function installValue(target: object, name: string, value: unknown): void {
  defineValue(target, name, nameFunction(value, name));
}

/** How many lazy builds are running (one may start another by a direct call, never through a getter). */
let building = 0;

/**
 * Globals built together on the first read of any of them (or each replaced
 * by a write before that). All of them are plain `undefined` while the build
 * runs, and so is every global of another group not built yet: a library
 * that looks for an existing global as it starts (event-target-shim does,
 * inside the lazy script that many groups load) finds none, and no getter
 * re-enters a build.
 */
function defineLazy(target: object, names: readonly string[], build: () => Record<string, unknown>): () => void {
  let built = false;
  const settle = () => {
    if (built) return;
    built = true;
    for (const name of names) defineValue(target, name, undefined);
    building++;
    let values: Record<string, unknown>;
    try {
      values = build();
    } finally {
      building--;
    }
    for (const name of names) installValue(target, name, values[name]);
  };
  for (const name of names) {
    FERAL_DEFINE_PROPERTY(target, name, {
      __proto__: null,
      configurable: true,
      enumerable: false,
      get() {
        if (building > 0) return undefined;
        settle();
        return (target as Record<string, unknown>)[name];
      },
      set(value: unknown) {
        defineValue(target, name, value);
      },
    } as PropertyDescriptor);
  }
  return settle;
}

/** The runtime's setTimeout and clearTimeout, read off the global before any tool code ran (../timers.ts defines them first). */
function runtimeTimers(target: object) {
  const { setTimeout: setTimer, clearTimeout: clearTimer } = target as { setTimeout?: unknown; clearTimeout?: unknown };
  if (typeof setTimer !== "function" || typeof clearTimer !== "function") throw new Error("corral runtime: the timers must be installed before the web globals");
  return { setTimer: setTimer as (run: () => void, delayMs: number) => unknown, clearTimer: clearTimer as (id: unknown) => void };
}

const EVENT_GLOBALS = [
  "Event",
  "EventTarget",
  "CustomEvent",
  "ErrorEvent",
  "AbortController",
  "AbortSignal",
  "addEventListener",
  "removeEventListener",
  "dispatchEvent",
  "reportError",
];

export function installWebGlobals(target: object, options: WebGlobalsOptions): void {
  installValue(target, "atob", atob);
  installValue(target, "btoa", btoa);
  installValue(target, "TextEncoder", TextEncoder);
  setDecodeBridge(options.decode);
  setStreamsLoader(options.loadStreams);
  setLazyLoader(
    options.loadWeb,
    (run) => {
      building++;
      try {
        return run();
      } finally {
        building--;
      }
    },
  );
  installValue(target, "TextDecoder", TextDecoder);
  installValue(target, "DOMException", DOMException);
  const settleEvents = defineLazy(target, EVENT_GLOBALS, () => {
    const { events, abort } = lazyWeb();
    return { ...events, ...events.createGlobalEvents(options.reportToConsole), ...abort };
  });
  // performance is an EventTarget: the events are built first (event-target-shim looks for the globals as it starts, which must not re-enter this build).
  // Its clock counts from now (less 1 ms, see performance-entry.ts); its observers' task is a timer of the runtime's, defined before this runs.
  const performanceOptions = { timeOriginMs: Date.now() - 1, ...runtimeTimers(target), report: options.reportToConsole };
  defineLazy(target, ["performance", "Performance", "PerformanceEntry", "PerformanceMark", "PerformanceMeasure", "PerformanceObserver", "PerformanceObserverEntryList"], () => {
    settleEvents();
    const { performance } = lazyWeb();
    return { ...performance, performance: performance.createPerformance(performanceOptions) };
  });
  defineLazy(target, ["crypto", "Crypto", "SubtleCrypto", "CryptoKey"], () => {
    const { crypto, subtle } = lazyWeb();
    return { ...crypto, crypto: crypto.createCrypto(options.random, options.askWorker as WebCryptoExchange), CryptoKey: subtle.CryptoKey };
  });
  defineLazy(target, ["URL", "URLSearchParams"], () => loadUrl(options.loadUrl));
  defineLazy(target, ["URLPattern"], () => loadUrlPattern(options.loadUrl));
  defineLazy(target, ["structuredClone"], () => ({ ...lazyWeb().clone }));
  // WinterTC: `self` is the global object; `navigator.userAgent` names the runtime.
  defineValue(target, "self", target);
  defineLazy(target, ["navigator"], () => ({ navigator: createNavigator() }));
  defineLazy(target, STREAM_GLOBALS, () => ({ ...webStreams() }));
  defineLazy(target, ["TextEncoderStream", "TextDecoderStream"], () => ({ ...lazyWeb().textStreams }));
  defineLazy(target, ["CompressionStream", "DecompressionStream"], () => {
    const { compression } = lazyWeb();
    compression.setCompressionExchange(options.askWorker);
    return { ...compression };
  });
  defineLazy(target, ["Blob", "File", "FormData"], () => ({ ...lazyWeb().blob, ...lazyWeb().formData }));
  defineLazy(target, ["Headers", "Request", "Response"], () => ({ ...lazyWeb().headers, ...lazyWeb().request, ...lazyWeb().response }));
}
