/**
 * @module sandbox/guest/web
 * Web-standard globals for tools (URL, TextEncoder, crypto, fetch's classes
 * ...), installed into each tool context by the guest runtime.
 */
export { installWebGlobals, type WebGlobalsOptions } from "./install.js";
