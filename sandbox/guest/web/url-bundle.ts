/**
 * @module sandbox/guest/web/url-bundle
 * Entry of dist/sandbox/guest/web-url.bundle.js: whatwg-url (jsdom's
 * implementation of the WHATWG URL standard, IDNA through tr46) as a script
 * of its own. tr46's tables are most of its ~290 KB of source, and an
 * isolate keeps the source of every script it ran: bundled into the runtime
 * they cost every isolate ~350 KB of heap. So the worker runs this script in
 * a tool's context only when the tool first reads `URL` or
 * `URLSearchParams` (see ./url.ts), from a code cache it made itself.
 * It needs the runtime's TextEncoder/TextDecoder globals, installed before.
 * `URLPattern` (urlpattern-polyfill, the URLPattern standard's polyfill,
 * run against WPT; MIT) comes with it: it parses with URL, and the build
 * points its `URL` at whatwg-url's (./url-inject.ts), never at a global a
 * tool may have replaced.
 */
import { URL, URLSearchParams } from "whatwg-url";

export const urlModule = {
  URL,
  URLSearchParams,
  // Started on first read (esbuild makes a require()d module lazy): a tool that uses only URL builds none of it.
  get URLPattern(): unknown {
    return (require("urlpattern-polyfill/urlpattern") as { URLPattern: unknown }).URLPattern;
  },
};
