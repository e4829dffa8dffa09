/**
 * @module sandbox/guest/web/url-inject
 * Injected by the build into the URL script (scripts/build.mjs): every free
 * `URL` there (urlpattern-polyfill's) is whatwg-url's class, not the global.
 */
export { URL } from "whatwg-url";
