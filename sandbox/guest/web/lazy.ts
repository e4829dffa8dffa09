/**
 * @module sandbox/guest/web/lazy
 * Loads the web globals built on first use (./lazy-bundle.ts) into this
 * context, once: the worker lends one callback that runs
 * web-lazy.bundle.js and leaves its completion value, a function, under
 * `__corral_lazy_module`; this takes it off at once and calls it with the
 * runtime's own shared modules (RUNTIME_SHARED), which the script's modules
 * import instead of copies of their own.
 */
import type { LazyModule } from "./lazy-bundle.js";
import * as intrinsics from "../intrinsics.js";
import * as domException from "./dom-exception.js";
import * as textCodec from "./text-codec.js";
import * as encodings from "./encodings.js";
import * as streams from "./streams.js";
import * as bytes from "./bytes.js";
import * as base64 from "./base64.js";

export type LazyLoader = () => void;

/**
 * The script runs after tool code did, so its `Object` (esbuild's helpers
 * and every module's `Object.defineProperty`, `Object.keys` ...) is this
 * copy of the constructor's statics as they were when the runtime started
 * (the script's banner declares `var Object = __corral_imports.Object`): a
 * tool that replaced `Object.defineProperty` still gets working globals.
 */
const FERAL_OBJECT = Object;
const FERAL_REFLECT_OWN_KEYS = Reflect.ownKeys;
function SafeObject(value?: unknown): object {
  return FERAL_OBJECT(value);
}
for (const key of FERAL_REFLECT_OWN_KEYS(FERAL_OBJECT)) {
  if (key === "length" || key === "name" || key === "prototype") continue;
  FERAL_OBJECT.defineProperty(SafeObject, key, FERAL_OBJECT.getOwnPropertyDescriptor(FERAL_OBJECT, key) as PropertyDescriptor);
}
SafeObject.prototype = FERAL_OBJECT.prototype;

/** What the script's imports of the shared modules resolve to; the keys are scripts/build.mjs's RUNTIME_SHARED. */
const SHARED = {
  Object: SafeObject,
  "sandbox/guest/intrinsics": intrinsics,
  "sandbox/guest/web/dom-exception": domException,
  "sandbox/guest/web/text-codec": textCodec,
  "sandbox/guest/web/encodings": encodings,
  "sandbox/guest/web/streams": streams,
  "sandbox/guest/web/bytes": bytes,
  "sandbox/guest/web/base64": base64,
};

const SLOT = "__corral_lazy_module";
let loader: LazyLoader | undefined;
let loaded: LazyModule | undefined;
let guard: <T>(run: () => T) => T = (run) => run();

/**
 * Set once by installWebGlobals, before any tool code runs. `whileLoading`
 * wraps the load (a module that starts with it may read globals as it
 * starts; the others start on first read, inside the lazy global's build
 * that needs them).
 */
export function setLazyLoader(load: LazyLoader, whileLoading: <T>(run: () => T) => T): void {
  if (loader !== undefined) return;
  loader = load;
  guard = whileLoading;
}

/** The lazily built web modules, loading them on first use. */
export function lazyWeb(): LazyModule {
  if (loaded !== undefined) return loaded;
  if (loader === undefined) throw new Error("corral runtime: no loader for the web globals");
  const load = loader;
  const global = globalThis as Record<string, unknown>;
  const module = guard(() => {
    load();
    const factory = global[SLOT];
    delete global[SLOT];
    if (typeof factory !== "function") throw new Error("corral runtime: the worker did not load the web globals");
    return (factory as (imports: typeof SHARED) => LazyModule)(SHARED);
  });
  loaded = module;
  return module;
}
