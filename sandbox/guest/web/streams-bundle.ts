/**
 * @module sandbox/guest/web/streams-bundle
 * Entry of dist/sandbox/guest/web-streams.bundle.js: web-streams-polyfill
 * (the WHATWG Streams standard's reference implementation, kept by
 * Mattias Buelens and run against the Web Platform Tests; MIT) as a script
 * of its own, ~65 KB of source an isolate would otherwise keep for every
 * tool. The worker runs it in a tool's context only on first use of a
 * stream (see ./streams.ts), from a code cache it made itself. It needs
 * only the engine's globals (and the runtime's DOMException, queueMicrotask
 * and structuredClone, installed before). A BYOB read transfers its buffer
 * with ArrayBuffer.prototype.transfer (on Node 20 the worker turns it on).
 */
import * as streams from "web-streams-polyfill";

// WebIDL: an async iterator's prototype inherits from %AsyncIteratorPrototype%; the polyfill's is a plain object.
// This script may run after tool code replaced Object's functions: then the streams still load, without this.
try {
  const asyncIteratorPrototype: object = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype);
  const streamIteratorPrototype: object = Object.getPrototypeOf(new streams.ReadableStream().values());
  if (Object.getPrototypeOf(streamIteratorPrototype) === Object.prototype) Object.setPrototypeOf(streamIteratorPrototype, asyncIteratorPrototype);
} catch {
  // The tool's own doing, in its own isolate.
}

export const streamsModule = { ...streams };
