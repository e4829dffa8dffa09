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

export function loadUrl(load: UrlLoader): UrlModule {
  const global = globalThis as Record<string, unknown>;
  load();
  const module = global[SLOT] as UrlModule | undefined;
  delete global[SLOT];
  if (module === undefined || module === null) throw new Error("corral runtime: the worker did not load URL");
  return { URL: module.URL, URLSearchParams: module.URLSearchParams, URLPattern: module.URLPattern };
}
