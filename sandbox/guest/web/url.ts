/**
 * @module sandbox/guest/web/url
 * `URL`, `URLSearchParams` and `URLPattern`, loaded on first use: the worker lends one
 * callback that runs web-url.bundle.js (./url-bundle.ts) in this context and
 * leaves its exports on the global object under `__corral_url_module`, which
 * this takes off at once. A tool that planted something there itself gets
 * only its own URL class back; the runtime never uses URL. URL gains the
 * File API's createObjectURL and revokeObjectURL.
 */
import { intrinsics as I } from "../intrinsics.js";
import { lazyWeb } from "./lazy.js";

export type UrlLoader = () => void;
export type UrlModule = { URL: unknown; URLSearchParams: unknown; URLPattern: unknown };

const SLOT = "__corral_url_module";

let loaded: UrlModule | undefined;

function urlModule(load: UrlLoader): UrlModule {
  if (loaded !== undefined) return loaded;
  const global = globalThis as Record<string, unknown>;
  load();
  const module = global[SLOT] as UrlModule | undefined;
  delete global[SLOT];
  if (module === undefined || module === null) throw new Error("corral runtime: the worker did not load URL");
  loaded = module;
  return module;
}

export function loadUrl(load: UrlLoader): { URL: unknown; URLSearchParams: unknown } {
  const module = urlModule(load);
  addBlobUrls(module.URL as object);
  return { URL: module.URL, URLSearchParams: module.URLSearchParams };
}

/** File API's static operations on URL (./blob-url.ts builds on first call). */
function addBlobUrls(URL: object): void {
  // Method shorthand: standard names and lengths, not constructors.
  const statics = {
    createObjectURL(obj: unknown): string {
      return I.apply(lazyWeb().blobUrl.createObjectURL, undefined, arguments as unknown as unknown[]) as string;
    },
    revokeObjectURL(url: unknown): void {
      I.apply(lazyWeb().blobUrl.revokeObjectURL, undefined, arguments as unknown as unknown[]);
    },
  };
  for (const name of ["createObjectURL", "revokeObjectURL"] as const) {
    I.ObjectDefineProperty(URL, name, { __proto__: null, value: statics[name], writable: true, enumerable: true, configurable: true } as PropertyDescriptor);
  }
}

/** URLPattern, from the URL script (which it loads if URL has not): its module starts only now. */
export function loadUrlPattern(load: UrlLoader): { URLPattern: unknown } {
  return { URLPattern: urlModule(load).URLPattern };
}
