/**
 * @module sandbox/guest/web/url
 * `URL`, `URLSearchParams` and `URLPattern`, loaded on first use: the worker lends one
 * callback that runs web-url.bundle.js (./url-bundle.ts) in this context and
 * leaves its exports on the global object under `__corral_url_module`, which
 * this takes off at once. A tool that planted something there itself gets
 * only its own URL class back; the runtime never uses URL.
 */
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
  return { URL: module.URL, URLSearchParams: module.URLSearchParams };
}

/** URLPattern, from the URL script (which it loads if URL has not): its module starts only now. */
export function loadUrlPattern(load: UrlLoader): { URLPattern: unknown } {
  return { URLPattern: urlModule(load).URLPattern };
}
