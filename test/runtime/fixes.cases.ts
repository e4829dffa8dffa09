/**
 * @module test/runtime/fixes.cases
 * structuredClone, Headers, timers, performance and the compression streams,
 * from HTML, Fetch, WebIDL, User Timing and Compression: each case's body and
 * the answer the standard gives.
 */
import type { Answer } from "./run-cases.js";

const v = (value: unknown): Answer => ({ value });

export const FIX_CASES: Record<string, { body: string; expect: Answer }> = {
  "structuredClone keeps -0, holes and extra keys": {
    body: `const a = [1, , -0]; a.extra = "x"; const b = structuredClone({ z: -0, a }); return [Object.is(b.z, -0), Object.is(b.a[2], -0), 1 in b.a, b.a.length, b.a.extra];`,
    expect: v([true, true, false, 3, "x"]),
  },
  "structuredClone keeps views on one buffer": {
    body: `const buf = new ArrayBuffer(8); const x = new Uint8Array(buf, 2, 4); const y = new DataView(buf, 4); const [cx, cy] = structuredClone([x, y]); cx[2] = 9; return [cx.buffer === cy.buffer, cx.byteOffset, cy.byteOffset, cy.getUint8(0), cx.buffer !== buf];`,
    expect: v([true, 2, 4, 9, true]),
  },
  "structuredClone of errors keeps cause and type": {
    body: `const e = new RangeError("r", { cause: { why: 1 } }); const c = structuredClone(e); const d = structuredClone(new DOMException("m", "DataCloneError")); return [c instanceof RangeError, c.message, c.cause, c !== e, d.name, d.code];`,
    expect: v([true, "r", { why: 1 }, true, "DataCloneError", 25]),
  },
  "structuredClone refuses what cannot be cloned": {
    body: `return [() => structuredClone(() => 1), () => structuredClone(Symbol()), () => structuredClone(new WeakMap()), () => structuredClone(Promise.resolve()), () => structuredClone(1, { transfer: [{}] }), () => { const b = new ArrayBuffer(1); structuredClone(b, { transfer: [b, b] }); }].map((f) => { try { f(); return "cloned"; } catch (e) { return e.name + ":" + e.code; } });`,
    expect: v(["DataCloneError:25", "DataCloneError:25", "DataCloneError:25", "DataCloneError:25", "DataCloneError:25", "DataCloneError:25"]),
  },
  "structuredClone of wrappers, dates, maps and blobs": {
    body: `const m = new Map([[1, new Set([2])]]); const [n, s, d, mm, b] = structuredClone([Object(5), Object("s"), new Date(7), m, new Blob(["bl"], { type: "a/b" })]); return [typeof n, n.valueOf(), s.valueOf(), d.getTime(), [...mm.get(1)], b.type, await b.text()];`,
    expect: v(["object", 5, "s", 7, [2], "a/b", "bl"]),
  },
  "Headers refuse null and values above U+00FF": {
    body: `return [() => new Headers(null), () => new Headers({ a: "\\u0100" }), () => new Headers().append("a", "ÿ")].map((f) => { try { const h = f(); return h === undefined ? "appended" : "made"; } catch (e) { return e.name; } });`,
    expect: v(["TypeError", "TypeError", "appended"]),
  },
  "Headers iterators are live": {
    body: `const h = new Headers({ b: "2" }); const it = h.keys(); const seen = [it.next().value]; h.append("c", "3"); h.append("a", "1"); seen.push(it.next().value, it.next().value, it.next().done); return seen;`,
    expect: v(["b", "b", "c", true]),
  },
  "Response.error() has immutable headers": {
    body: `const r = Response.error(); try { r.headers.set("a", "b"); return "set"; } catch (e) { return [e.name, r.type, r.status]; }`,
    expect: v(["TypeError", "error", 0]),
  },
  "timers wrap a delay of 2^32 to 0": {
    body: `const seen = []; setTimeout(() => seen.push("2^32"), 2 ** 32); setTimeout(() => seen.push("2^31"), 2 ** 31); setTimeout(() => seen.push("string"), "5"); await new Promise((r) => setTimeout(r, 30)); return seen;`,
    expect: v(["2^32", "2^31", "string"]),
  },
  "performance mark and measure": {
    body: `performance.mark("a", { detail: 1 }); performance.mark("b"); const m = performance.measure("a-b", "a", "b"); const o = performance.measure("opt", { start: 0, duration: 5 }); let missing; try { performance.measure("x", "nope"); } catch (e) { missing = e.name; } const names = performance.getEntries().map((e) => e.entryType + ":" + e.name).sort(); performance.clearMarks("a"); return [performance instanceof EventTarget, m.duration >= 0, m.entryType, o.duration, missing, names, performance.getEntriesByType("mark").length, performance.getEntriesByName("a-b")[0].name, Object.prototype.toString.call(m), typeof performance.addEventListener];`,
    expect: v([true, true, "measure", 5, "SyntaxError", ["mark:a", "mark:b", "measure:a-b", "measure:opt"], 1, "a-b", "[object PerformanceMeasure]", "function"]),
  },
  "compression round trips": {
    body: `const text = "hello hello hello ".repeat(5000); const run = async (stream, chunks) => { const out = []; const s = new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } }).pipeThrough(stream); for await (const x of s) out.push(...x); return new Uint8Array(out); }; const results = []; for (const f of ["gzip", "deflate", "deflate-raw"]) { const packed = await run(new CompressionStream(f), [new TextEncoder().encode(text.slice(0, 1000)), new TextEncoder().encode(text.slice(1000))]); const back = new TextDecoder().decode(await run(new DecompressionStream(f), [packed.slice(0, 7), packed.slice(7)])); results.push(packed.length < text.length, back === text); } return results;`,
    expect: v([true, true, true, true, true, true]),
  },
  "compression refuses": {
    body: `const out = []; for (const f of [() => new CompressionStream("brotli"), () => new DecompressionStream()]) { try { f(); out.push("made"); } catch (e) { out.push(e.name); } } const bad = new ReadableStream({ start(c) { c.enqueue(new Uint8Array([1, 2, 3, 4])); c.close(); } }).pipeThrough(new DecompressionStream("gzip")); try { for await (const x of bad) {} out.push("decoded"); } catch (e) { out.push(e.name); } const notBytes = new ReadableStream({ start(c) { c.enqueue("text"); c.close(); } }).pipeThrough(new CompressionStream("gzip")); try { for await (const x of notBytes) {} out.push("compressed"); } catch (e) { out.push(e.name); } return out;`,
    expect: v(["TypeError", "TypeError", "TypeError", "TypeError"]),
  },
  // Compression Streams: input after the end of the compressed data errors the stream, in the last chunk or after it.
  "decompression refuses junk after the end": {
    body: `const packed = new Uint8Array(await new Response(new Blob(["hello hello"]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer()); const run = async (chunks) => { const s = new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } }).pipeThrough(new DecompressionStream("deflate")); try { return new TextDecoder().decode(await new Response(s).arrayBuffer()); } catch (e) { return e.name; } }; return [await run([packed]), await run([new Uint8Array([...packed, 0])]), await run([packed, new Uint8Array([1, 2])]), await run([packed, new Uint8Array(0)])];`,
    expect: v(["hello hello", "TypeError", "TypeError", "hello hello"]),
  },
  // File API blob URLs, fetched inside the tool (no effect): GET only, the fragment ignored, gone once revoked.
  "blob URLs": {
    body: `const blob = new Blob(["hi there"], { type: "text/plain" }); const url = URL.createObjectURL(blob); const other = URL.createObjectURL(new File(["x"], "f.txt")); const fails = (p) => p.then(() => "ok", (e) => e.name); const response = await fetch(url + "#frag"); const out = [url.startsWith("blob:null/"), url !== other, response.status, response.headers.get("content-type"), response.headers.get("content-length"), await response.text(), await fails(fetch(url + "?q")), await fails(fetch(url, { method: "POST" })), URL.createObjectURL.length]; URL.revokeObjectURL(url); out.push(await fails(fetch(url))); try { URL.createObjectURL("not a blob"); } catch (e) { out.push(e.name); } return out;`,
    expect: v([true, true, 200, "text/plain", "8", "hi there", "TypeError", "TypeError", 1, "TypeError", "TypeError"]),
  },
  // Fetch: a null body read is not used; a body read as bytes has a locked, disturbed stream; WebIDL lengths.
  "consumed bodies": {
    body: `const empty = new Response(); await empty.text(); const read = new Response("x"); await read.text(); let locked; try { read.body.getReader(); locked = "reader"; } catch (e) { locked = e.name; } return [empty.bodyUsed, read.bodyUsed, read.body !== null, locked, Blob.length, File.length];`,
    expect: v([false, true, true, "TypeError", 0, 2]),
  },
  // WebIDL for Headers: the union reads @@iterator once and uses it; a record is read key by key, in order, as ByteStrings; pair iterators.
  "Headers after WebIDL": {
    body: `const custom = new Headers(); custom[Symbol.iterator] = function* () { yield ["test", "yes"]; }; const log = []; const proxy = new Proxy({ a: "b", "\u0100": "d" }, { ownKeys(t) { log.push("ownKeys"); return Reflect.ownKeys(t); }, getOwnPropertyDescriptor(t, k) { log.push("gopd " + String(k)); return Reflect.getOwnPropertyDescriptor(t, k); }, get(t, k) { log.push("get " + String(k)); return Reflect.get(t, k); } }); let threw; try { new Headers(proxy); } catch (e) { threw = e.name; } const it = new Headers({ b: "2", a: "1" }).keys(); const iteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())); const next = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(it), "next"); return [new Headers(custom).get("test"), threw, log, Object.getPrototypeOf(Object.getPrototypeOf(it)) === iteratorPrototype, Object.prototype.toString.call(it), next.enumerable, [...it], Headers.length];`,
    expect: v(["yes", "TypeError", ["get Symbol(Symbol.iterator)", "ownKeys", "gopd a", "get a", "gopd \u0100"], true, "[object Headers Iterator]", true, ["a", "b"], 0]),
  },
  "Request duplex, and a disturbed stream is no body": {
    body: `const first = new Request("https://example.com/", { method: "POST", body: "one" }); const copy = new Request("https://example.com/", first); const stream = new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1)) }); const reader = stream.getReader(); await reader.read(); reader.releaseLock(); let threw; try { new Response(stream); } catch (e) { threw = e.name; } return [first.duplex, await copy.text(), threw];`,
    expect: v(["half", "one", "TypeError"]),
  },
  // DOM: isTrusted is one shared own getter, true for the events the platform dispatches; signal: null is a TypeError.
  "trusted events and listener options": {
    body: `const controller = new AbortController(); let trusted; controller.signal.onabort = (e) => { trusted = e.isTrusted; }; controller.abort(); const mine = new Event("x"); const a = Object.getOwnPropertyDescriptor(mine, "isTrusted"); const b = Object.getOwnPropertyDescriptor(new Event("y"), "isTrusted"); let threw; try { new EventTarget().addEventListener("x", () => {}, { signal: null }); } catch (e) { threw = e.name; } return [trusted, mine.isTrusted, typeof a.get, a.get === b.get, a.configurable, threw, EventTarget.prototype.addEventListener.length];`,
    expect: v([true, false, "function", true, false, "TypeError", 2]),
  },
  // URL's urlencoded parser decodes UTF-8 "without BOM": a leading U+FEFF is kept.
  "urlencoded bodies keep a BOM": {
    body: `const form = await new Response("\uFEFFtest=\uFEFF", { headers: { "content-type": "application/x-www-form-urlencoded" } }).formData(); return [...form.entries()][0].map((s) => s.charCodeAt(0));`,
    expect: v([0xfeff, 0xfeff]),
  },
  // HTML's transfer and Streams' BYOB reads detach the buffers they move (on Node 20 through V8 11's flag, set by the worker).
  "transfer detaches": {
    body: `const buffer = new Uint8Array([1, 2, 3]).buffer; const view = new Uint8Array(buffer, 1); const clone = structuredClone({ buffer, view }, { transfer: [buffer] }); let again; try { structuredClone(buffer, { transfer: [buffer] }); } catch (e) { again = e.name; } const stream = new ReadableStream({ type: "bytes", pull(c) { c.enqueue(new Uint8Array([7, 8])); c.close(); } }); const reader = stream.getReader({ mode: "byob" }); const given = new ArrayBuffer(4); const { value } = await reader.read(new Uint8Array(given)); return [buffer.byteLength, [...new Uint8Array(clone.buffer)], [...clone.view], clone.view.buffer === clone.buffer, again, given.byteLength, [...value]];`,
    expect: v([0, [1, 2, 3], [2, 3], true, "DataCloneError", 0, [7, 8]]),
  },
  // Web Crypto's "parse a JWK" converts the parsed JSON to the JsonWebKey dictionary, and WebIDL
  // refuses a number there with a TypeError; text that is not JSON is a DataError. Node 26
  // and 24 answer DataError for all three (Node 20 and 22 as the standard), so this case is not
  // compared with Node.
  "unwrapKey parses a JWK as Web Crypto says": {
    body: `const s = crypto.subtle; const iv = new Uint8Array(12); const gcm = await s.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["wrapKey", "unwrapKey", "encrypt"]); const hmac = { name: "HMAC", hash: "SHA-256" }; const out = []; for (const text of ["5", "{not json", '{"a":1}']) { const sealed = await s.encrypt({ name: "AES-GCM", iv }, gcm, new TextEncoder().encode(text)); try { await s.unwrapKey("jwk", sealed, gcm, { name: "AES-GCM", iv }, hmac, true, ["sign"]); out.push("unwrapped"); } catch (e) { out.push(e.name); } } return out;`,
    expect: v(["TypeError", "DataError", "DataError"]),
  },
  // WebIDL: an exception interface's object inherits from Function.prototype and its prototype from
  // Error.prototype; instances are Errors with a stack (its header is "DataError: m" on Node 20, "DataError"
  // on Node 26's V8), and a subclass makes instances of its own.
  "DOMException is WebIDL's interface object": {
    body: `class Mine extends DOMException { constructor() { super("sub", "AbortError"); } } const e = new DOMException("m", { name: "DataError", cause: 1 }); const m = new Mine(); let threw; try { Object.getOwnPropertyDescriptor(DOMException.prototype, "name").get.call({}); } catch (x) { threw = x instanceof TypeError; } return [Object.getPrototypeOf(DOMException) === Function.prototype, Object.getPrototypeOf(DOMException.prototype) === Error.prototype, e instanceof Error, e.name, e.code, e.cause, e.stack.startsWith("DataError"), Object.prototype.toString.call(e), m instanceof Mine, m instanceof DOMException, m.name, m.code, threw, DOMException.length, DOMException.name];`,
    expect: v([true, true, true, "DataError", 0, 1, true, "[object DOMException]", true, true, "AbortError", 20, true, 0, "DOMException"]),
  },
  // HTML: navigator.platform is the empty string or the platform's name; the empty string says nothing of the host.
  "navigator.platform says nothing": {
    body: `const proto = Object.getPrototypeOf(navigator); const d = Object.getOwnPropertyDescriptor(proto, "platform"); return [navigator.platform, typeof d.get, d.enumerable, Object.keys(proto).includes("userAgent")];`,
    expect: v(["", "function", true, true]),
  },
};
