/**
 * @module test/runtime/globals.cases
 * WinterTC's small globals, from the standards (DOM, HTML, WebIDL, Encoding):
 * each case's body and the answer the standard gives. Node 20 lacks some of
 * them (navigator) or differs (it trims labels with String.prototype.trim),
 * so these answers are written here, not taken from Node.
 */
import type { Answer } from "./run-cases.js";

const v = (value: unknown): Answer => ({ value });

export const GLOBAL_CASES: Record<string, { body: string; expect: Answer }> = {
  "self is the global object": { body: "return [self === globalThis, typeof self];", expect: v([true, "object"]) },
  "navigator.userAgent": {
    body: "return [typeof navigator.userAgent, navigator.userAgent.length > 0, Object.prototype.toString.call(navigator)];",
    expect: v(["string", true, "[object Navigator]"]),
  },
  "CustomEvent detail": {
    body: `const seen = []; const t = new EventTarget(); t.addEventListener("hi", (e) => seen.push(e.detail, e instanceof Event, e.type)); t.dispatchEvent(new CustomEvent("hi", { detail: { a: 1 } })); return [seen, new CustomEvent("x").detail, Object.prototype.toString.call(new CustomEvent("x"))];`,
    expect: v([[{ a: 1 }, true, "hi"], null, "[object CustomEvent]"]),
  },
  "Event needs a type": {
    body: `const out = []; for (const make of [() => new Event(), () => new CustomEvent(), () => new Event(undefined)]) { try { out.push(make().type); } catch (e) { out.push(e.name); } } return out;`,
    expect: v(["TypeError", "TypeError", "undefined"]),
  },
  "reportError dispatches an error event": {
    body: `const seen = []; const listener = (e) => { seen.push(e.constructor.name, e.error, e.message, e.cancelable); e.preventDefault(); }; addEventListener("error", listener); reportError(new TypeError("boom")); reportError("text"); removeEventListener("error", listener); reportError(1); let none; try { reportError(); } catch (e) { none = e.name; } return [seen.map(String), none];`,
    expect: v([["ErrorEvent", "TypeError: boom", "boom", "true", "ErrorEvent", "text", "text", "true"], "TypeError"]),
  },
  "a throwing listener is reported, not thrown": {
    body: `const seen = []; addEventListener("error", (e) => { seen.push(e.message); e.preventDefault(); }); const t = new EventTarget(); t.addEventListener("x", () => { throw new Error("inner"); }); t.addEventListener("x", () => seen.push("next")); const r = t.dispatchEvent(new Event("x")); return [r, seen];`,
    expect: v([true, ["inner", "next"]]),
  },
  "DOMException legacy constants": {
    body: `const names = ["INDEX_SIZE_ERR", "DOMSTRING_SIZE_ERR", "HIERARCHY_REQUEST_ERR", "NOT_FOUND_ERR", "INUSE_ATTRIBUTE_ERR", "VALIDATION_ERR", "DATA_CLONE_ERR"]; const d = Object.getOwnPropertyDescriptor(DOMException, "ABORT_ERR"); return [names.map((n) => DOMException[n]), names.map((n) => DOMException.prototype[n]), new DOMException("m", "AbortError").ABORT_ERR, d.writable, d.enumerable, d.configurable];`,
    expect: v([[1, 2, 3, 8, 10, 16, 25], [1, 2, 3, 8, 10, 16, 25], 20, false, true, false]),
  },
  "DOMException names, codes and accessors": {
    body: `const e = new DOMException("msg", "NotFoundError"); let brand; try { Object.getOwnPropertyDescriptor(DOMException.prototype, "name").get.call({}); } catch (x) { brand = x.name; } return [e.name, e.message, e.code, new DOMException().name, new DOMException().message, new DOMException("", "InUseAttributeError").code, new DOMException("", "NoSuch").code, Object.hasOwn(e, "message"), Object.hasOwn(e, "name"), e instanceof Error, brand, String(e), new DOMException("m", { name: "DataCloneError", cause: 7 }).cause];`,
    expect: v(["NotFoundError", "msg", 8, "Error", "", 10, 0, false, false, true, "TypeError", "NotFoundError: msg", 7]),
  },
  "onabort sees its target": {
    body: `const c = new AbortController(); const seen = []; c.signal.addEventListener("abort", (e) => seen.push("first", e.target === c.signal)); c.signal.onabort = (e) => seen.push("onabort", e.target === c.signal, e.currentTarget === c.signal); c.signal.addEventListener("abort", () => seen.push("last")); c.abort(); return [seen, typeof c.signal.onabort];`,
    expect: v([["first", true, "onabort", true, true, "last"], "function"]),
  },
  "AbortSignal.any marks dependents aborted before any event fires": {
    body: `const c = new AbortController(); const a = AbortSignal.any([c.signal]); const b = AbortSignal.any([a]); const seen = []; c.signal.addEventListener("abort", () => seen.push("source", a.aborted, b.aborted)); a.addEventListener("abort", () => seen.push("a", b.aborted)); b.addEventListener("abort", () => seen.push("b", b.reason)); c.abort("why"); return seen;`,
    expect: v(["source", true, true, "a", true, "b", "why"]),
  },
  "AbortSignal.any of an aborted signal": {
    body: `const s = AbortSignal.any([AbortSignal.abort("r1"), AbortSignal.abort("r2")]); let bad; try { AbortSignal.any([{}]); } catch (e) { bad = e.name; } return [s.aborted, s.reason, bad];`,
    expect: v([true, "r1", "TypeError"]),
  },
  "TextDecoder trims ASCII whitespace only": {
    body: `return ["\\tutf-8\\n", " UTF8 ", "\\f\\rutf-8", "\\vutf-8", "\\u00a0utf8", "utf-8\\u2028", "unicode-1-1-utf-8", "utf-9", ""].map((l) => { try { return new TextDecoder(l).encoding; } catch (e) { return e.name; } });`,
    expect: v(["utf-8", "utf-8", "utf-8", "RangeError", "RangeError", "RangeError", "utf-8", "RangeError", "RangeError"]),
  },
  "TextDecoder knows the standard's labels": {
    body: `return ["latin1", "ascii", "iso-8859-1", "windows-1252", "cp1251", "koi8-r", "sjis", "shift_jis", "euc-jp", "iso-2022-jp", "gbk", "gb2312", "gb18030", "big5", "euc-kr", "utf-16", "utf-16le", "utf-16be", "x-user-defined", "iso-8859-8-i", "replacement", "iso-2022-kr", "hz-gb-2312"].map((l) => { try { return new TextDecoder(l).encoding; } catch (e) { return e.name; } });`,
    expect: v(["windows-1252", "windows-1252", "windows-1252", "windows-1252", "windows-1251", "koi8-r", "shift_jis", "shift_jis", "euc-jp", "iso-2022-jp", "gbk", "gbk", "gb18030", "big5", "euc-kr", "utf-16le", "utf-16le", "utf-16be", "x-user-defined", "iso-8859-8-i", "RangeError", "RangeError", "RangeError"]),
  },
  "TextDecoder decodes legacy encodings": {
    body: `const d = (label, bytes, opts) => new TextDecoder(label, opts).decode(new Uint8Array(bytes)); return [d("windows-1252", [0x80, 0x41, 0xe9]), d("shift_jis", [0x82, 0xa0, 0x93, 0xfa]), d("euc-kr", [0xc7, 0xd1]), d("utf-16le", [0x41, 0, 0x3d, 0xd8, 0x00, 0xde]), d("utf-16be", [0xfe, 0xff, 0, 0x42]), d("x-user-defined", [0x41, 0x80, 0xff]).split("").map((c) => c.charCodeAt(0)), d("gb18030", [0x81, 0x30, 0x81, 0x30]), d("koi8-r", [0xc1])];`,
    expect: v(["€Aé", "あ日", "한", "A😀", "B", [0x41, 0xf780, 0xf7ff], "\u0080", "а"]),
  },
  "TextDecoder legacy streaming and fatal": {
    body: `const s = new TextDecoder("shift_jis"); const parts = [s.decode(new Uint8Array([0x82]), { stream: true }), s.decode(new Uint8Array([0xa0, 0x82]), { stream: true }), s.decode(new Uint8Array([0xa2]))]; const j = new TextDecoder("iso-2022-jp"); const k = [j.decode(new Uint8Array([0x1b, 0x24, 0x42]), { stream: true }), j.decode(new Uint8Array([0x24, 0x22]))]; let fatal; try { new TextDecoder("shift_jis", { fatal: true }).decode(new Uint8Array([0x82])); } catch (e) { fatal = e.name; } return [parts, k, fatal, new TextDecoder("shift_jis").decode(new Uint8Array([0x82]))];`,
    expect: v([["", "あ", "い"], ["", "あ"], "TypeError", "\ufffd"]),
  },
  "TextDecoder legacy: a large input crosses in pieces": {
    body: `const bytes = new Uint8Array(3 * 1024 * 1024 + 2); bytes[0] = 0x41; for (let i = 1; i + 1 < bytes.length; i += 2) { bytes[i] = 0x82; bytes[i + 1] = 0xa0; } bytes[bytes.length - 1] = 0x42; const text = new TextDecoder("shift_jis").decode(bytes); return [text.length, text.slice(0, 2), text.slice(-2), text.includes("\ufffd")];`,
    expect: v([1572866, "Aあ", "あB", false]),
  },
  // File API: "native" endings turn CRLF and a lone CR into LF (Node 20 leaves the lone CR).
  "Blob endings": {
    body: `return [await new Blob(["a\\r\\nb\\rc\\nd"], { endings: "native" }).text(), await new Blob(["a\\r\\nb"]).text()];`,
    expect: v(["a\nb\nc\nd", "a\r\nb"]),
  },
  // URLPattern standard (Node 20 has none).
  URLPattern: {
    body: `const p = new URLPattern({ pathname: "/books/:id" }); const m = p.exec("https://example.com/books/123"); const w = new URLPattern("https://example.com/*"); let bad; try { new URLPattern("(("); } catch (e) { bad = e.name; } return [p.test("https://example.com/books/123"), p.test("https://example.com/authors/1"), m.pathname.groups.id, p.pathname, w.test("https://example.com/a/b"), new URLPattern({ hostname: "*.example.com" }).test({ hostname: "a.example.com" }), bad, Object.prototype.toString.call(p).length > 0];`,
    expect: v([true, false, "123", "/books/:id", true, true, "TypeError", true]),
  },
};
