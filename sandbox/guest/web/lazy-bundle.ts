/**
 * @module sandbox/guest/web/lazy-bundle
 * Entry of dist/sandbox/guest/web-lazy.bundle.js: the web globals a tool
 * builds on first use (events and abort, Headers/Request/Response and
 * bodies, Blob, File, FormData, crypto, SubtleCrypto and CryptoKey,
 * structuredClone, performance's User Timing, the text codec and
 * compression streams), as a script of its own, so that an isolate whose
 * tool never touches them keeps none of their source (~60 KB); each module
 * starts only when first read. The worker
 * runs it on first use (./lazy.ts), from a code cache it made itself.
 *
 * The modules whose state or identity must be the runtime's own (intrinsics
 * captured before any tool ran, DOMException, TextEncoder/TextDecoder and
 * the encodings' bridge, the streams loader, bytes and base64) are not in
 * this script: scripts/build.mjs resolves them to the runtime's instances,
 * handed to the script's function as `__corral_imports` (see
 * RUNTIME_SHARED there), so `instanceof DOMException` holds across both.
 */
import type * as Events from "./events.js";
import type * as Abort from "./abort.js";
import type * as Headers from "./headers.js";
import type * as Request from "./request.js";
import type * as Response from "./response.js";
import type * as Blob from "./blob.js";
import type * as FormData from "./form-data.js";
import type * as Crypto from "./crypto.js";
import type * as Subtle from "./subtle.js";
import type * as Clone from "./clone.js";
import type * as Performance from "./performance.js";
import type * as TextStreams from "./text-streams.js";
import type * as Compression from "./compression.js";
import type * as BlobUrl from "./blob-url.js";

// Each module starts on its first read here (esbuild makes a require()d module a lazy one), so a
// tool that uses Headers does not also build Blob, SubtleCrypto or performance.
export const lazyModule = {
  get events() {
    return require("./events.js") as typeof Events;
  },
  get abort() {
    return require("./abort.js") as typeof Abort;
  },
  get headers() {
    return require("./headers.js") as typeof Headers;
  },
  get request() {
    return require("./request.js") as typeof Request;
  },
  get response() {
    return require("./response.js") as typeof Response;
  },
  get blob() {
    return require("./blob.js") as typeof Blob;
  },
  get formData() {
    return require("./form-data.js") as typeof FormData;
  },
  get crypto() {
    return require("./crypto.js") as typeof Crypto;
  },
  get subtle() {
    return require("./subtle.js") as typeof Subtle;
  },
  get clone() {
    return require("./clone.js") as typeof Clone;
  },
  get performance() {
    return require("./performance.js") as typeof Performance;
  },
  get textStreams() {
    return require("./text-streams.js") as typeof TextStreams;
  },
  get compression() {
    return require("./compression.js") as typeof Compression;
  },
  get blobUrl() {
    return require("./blob-url.js") as typeof BlobUrl;
  },
};
export type LazyModule = typeof lazyModule;
