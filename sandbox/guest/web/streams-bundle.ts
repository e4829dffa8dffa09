/**
 * @module sandbox/guest/web/streams-bundle
 * Entry of dist/sandbox/guest/web-streams.bundle.js: web-streams-polyfill
 * (the WHATWG Streams standard's reference implementation, kept by
 * Mattias Buelens and run against the Web Platform Tests; MIT) as a script
 * of its own, ~65 KB of source an isolate would otherwise keep for every
 * tool. The worker runs it in a tool's context only on first use of a
 * stream (see ./streams.ts), from a code cache it made itself. It needs
 * only the engine's globals (and the runtime's DOMException, queueMicrotask
 * and structuredClone, installed before; on Node 20's V8 an ArrayBuffer
 * cannot be detached, so a BYOB read copies instead of transferring).
 */
import * as streams from "web-streams-polyfill";

export const streamsModule = { ...streams };
