/**
 * @module sandbox/guest/web/lazy-bundle
 * Entry of dist/sandbox/guest/web-lazy.bundle.js: the web globals a tool
 * builds on first use (events and abort, Headers/Request/Response and
 * bodies, Blob, File, FormData, crypto and SubtleCrypto, structuredClone,
 * performance's User Timing, the text codec and compression streams) as a
 * script of its own, so that an isolate whose tool never touches them keeps
 * none of their source (~55 KB that every isolate would hold). The worker
 * runs it on first use (./lazy.ts), from a code cache it made itself.
 *
 * The modules whose state or identity must be the runtime's own (intrinsics
 * captured before any tool ran, DOMException, TextEncoder/TextDecoder and
 * the encodings' bridge, the streams loader, bytes and base64) are not in
 * this script: scripts/build.mjs resolves them to the runtime's instances,
 * handed to the script's function as `__corral_imports` (see
 * RUNTIME_SHARED there), so `instanceof DOMException` holds across both.
 */
import * as events from "./events.js";
import * as abort from "./abort.js";
import * as headers from "./headers.js";
import * as request from "./request.js";
import * as response from "./response.js";
import * as blob from "./blob.js";
import * as formData from "./form-data.js";
import * as crypto from "./crypto.js";
import * as subtle from "./subtle.js";
import * as clone from "./clone.js";
import * as performance from "./performance.js";
import * as textStreams from "./text-streams.js";
import * as compression from "./compression.js";

export const lazyModule = { events, abort, headers, request, response, blob, formData, crypto, subtle, clone, performance, textStreams, compression };
export type LazyModule = typeof lazyModule;
