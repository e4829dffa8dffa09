/**
 * @module test/web/conformance-cases
 * The web-globals conformance table: each case is the body of an async
 * function (with `z`, zod, in scope) returning JSON-able data. The same text
 * runs in Node and inside a tool's isolate; the answers must be equal. A
 * throw is compared by its `name` (and `code` for DOMException), not its
 * message, which engines word differently.
 */
export const CASES: Record<string, string> = {
  // URL
  "url parts": `const u = new URL("HTTP://User:Pw@EXAMPLE.com:80/./a/../b%7e?x=1&y=%20#frag"); return [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash];`,
  "url relative": `return [new URL("../c?d", "https://a.b/x/y/z").href, new URL("//other.org/p", "https://a.b/").href, new URL("?q", "https://a.b/p").href];`,
  "url idna": `return [new URL("https://münchen.de/ä?q=ü").href, new URL("https://xn--mnchen-3ya.de/").hostname, new URL("http://EXAMPLE.COM./").host];`,
  "url ipv4 forms": `return ["http://0x7f.1/", "http://2130706433/", "http://127.1/", "http://0177.0.0.1/"].map((s) => new URL(s).hostname);`,
  "url ipv6": `return ["http://[::1]:8080/", "http://[0:0:0:0:0:ffff:7f00:1]/", "http://[::ffff:127.0.0.1]/"].map((s) => new URL(s).host);`,
  "url schemes": `return ["file:///tmp/x y", "data:text/plain,hi", "mailto:a@b.c", "blob:https://a.b/uuid", "javascript:alert(1)"].map((s) => { const u = new URL(s); return [u.href, u.protocol, u.origin, u.pathname]; });`,
  "url invalid": `return ["", "http://", "http://exa mple.com", "https://[::1", "//no-scheme"].map((s) => { try { new URL(s); return "parsed"; } catch (e) { return e.name; } });`,
  "url canParse and json": `return [URL.canParse("https://a.b"), URL.canParse("nope"), JSON.stringify({ u: new URL("https://a.b/c") }), String(new URL("https://a.b"))];`,
  "url setters": `const u = new URL("https://a.b/c"); u.pathname = "/d e"; u.search = "x=1 2"; u.hash = "h"; u.port = "8443"; u.hostname = "c.d"; return u.href;`,
  "url searchParams": `const u = new URL("https://a.b/?a=1&b=2&a=3"); u.searchParams.append("c", "x y&z"); u.searchParams.delete("b"); return [u.href, u.searchParams.getAll("a"), u.searchParams.get("nope")];`,
  // URLSearchParams
  "usp parse and serialise": `const p = new URLSearchParams("?a=1&b=%C3%A9&c=a+b&d&=e&a=2"); return [[...p], p.toString(), p.size, p.has("d"), p.get("b")];`,
  "usp from object and pairs": `return [new URLSearchParams({ x: "1", "y z": "é/&" }).toString(), new URLSearchParams([["a", "1"], ["a", "2"]]).getAll("a")];`,
  "usp sort": `const p = new URLSearchParams("z=1&a=2&m=3&a=1"); p.sort(); return p.toString();`,
  // TextEncoder / TextDecoder
  "encode": `const e = new TextEncoder(); return [e.encoding, Array.from(e.encode("aé€😀")), Array.from(e.encode("\\ud800x")), Array.from(e.encode())];`,
  "encodeInto": `const dest = new Uint8Array(5); const r = new TextEncoder().encodeInto("ab€😀", dest); return [r.read, r.written, Array.from(dest)];`,
  "decode valid": `return new TextDecoder().decode(new Uint8Array([0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]));`,
  "decode invalid": `const d = new TextDecoder(); return [[0xff], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98, 0x41], [0x80, 0x80]].map((b) => d.decode(new Uint8Array(b)));`,
  "decode bom": `const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61]); return [new TextDecoder().decode(bytes).length, new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes).length];`,
  "decode fatal": `try { new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])); return "decoded"; } catch (e) { return e.name; }`,
  "decode stream": `const d = new TextDecoder(); const b = new TextEncoder().encode("x😀y€"); let s = ""; for (const byte of b) s += d.decode(new Uint8Array([byte]), { stream: true }); return s + d.decode();`,
  "decode views": `const buf = new Uint8Array([0, 0x68, 0x69, 0]).buffer; return [new TextDecoder().decode(new DataView(buf, 1, 2)), new TextDecoder().decode(buf), new TextDecoder("UTF8").encoding];`,
  // base64
  "btoa atob": `return [btoa(""), btoa("f"), btoa("fo"), btoa("foo"), btoa("\\xff\\xfe"), atob("Zm9v"), atob("Zg"), atob(" Zm 9v\\n"), atob("Zg==")];`,
  "atob invalid": `return ["Zm9v=", "Z", "Zm9v!", "Zg=", "Zm==x"].map((s) => { try { return atob(s); } catch (e) { return e.name + ":" + e.code; } });`,
  "btoa invalid": `try { return btoa("€"); } catch (e) { return e.name + ":" + e.code; }`,
  // structuredClone
  "structuredClone": `const a = { d: new Date(5), m: new Map([[1, { x: [1, 2] }]]), s: new Set(["a"]), r: /x/gi, u8: new Uint8Array([1, 2]), big: 10n }; a.self = a; const b = structuredClone(a); return [b !== a, b.self === b, b.d.getTime(), [...b.m.get(1).x], [...b.s], b.r.source + b.r.flags, Array.from(b.u8), String(b.big)];`,
  "structuredClone refuses": `try { structuredClone({ f() {} }); return "cloned"; } catch (e) { return e.name; }`,
  // crypto
  "getRandomValues": `const a = new Uint32Array(8); const r = crypto.getRandomValues(a); const b = crypto.getRandomValues(new Uint8Array(65536)); return [r === a, a.length, a.some((x) => x !== 0), b.length, new Set(b).size > 200];`,
  "getRandomValues refuses": `const out = []; for (const make of [() => new Float32Array(1), () => new Uint8Array(65537), () => new DataView(new ArrayBuffer(1))]) { try { crypto.getRandomValues(make()); out.push("filled"); } catch (e) { out.push(e.name); } } return out;`,
  "randomUUID": `const ids = Array.from({ length: 50 }, () => crypto.randomUUID()); return [ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)), new Set(ids).size];`,
  "digest": `const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join(""); const out = []; for (const alg of ["SHA-1", "SHA-256", "sha-384", { name: "SHA-512" }]) { out.push(hex(await crypto.subtle.digest(alg, new TextEncoder().encode("abc")))); out.push(hex(await crypto.subtle.digest(alg, new Uint8Array(0)))); } out.push(hex(await crypto.subtle.digest("SHA-256", new Uint8Array(1 << 20).fill(7)))); return out;`,
  "digest refuses": `try { await crypto.subtle.digest("MD5", new Uint8Array(1)); return "digested"; } catch (e) { return e.name; }`,
  // performance
  "performance": `const a = performance.now(); const b = performance.now(); return [typeof a, b >= a, a >= 0, typeof performance.timeOrigin];`,
  // events and abort
  "event target": `const t = new EventTarget(); const seen = []; const f = (e) => seen.push("f:" + e.type); t.addEventListener("x", f); t.addEventListener("x", (e) => seen.push("once"), { once: true }); t.dispatchEvent(new Event("x")); t.removeEventListener("x", f); t.dispatchEvent(new Event("x")); const e = new Event("y", { cancelable: true }); t.addEventListener("y", (ev) => ev.preventDefault()); const r = t.dispatchEvent(e); return [seen, r, e.defaultPrevented, e.cancelable, e.bubbles];`,
  "abort controller": `const c = new AbortController(); const seen = []; c.signal.addEventListener("abort", () => seen.push("abort")); c.signal.onabort = () => seen.push("onabort"); c.abort(); c.abort(); let thrown; try { c.signal.throwIfAborted(); } catch (e) { thrown = e.name; } return [c.signal.aborted, c.signal.reason.name, c.signal.reason.code, seen.sort(), thrown];`,
  "abort reasons": `const c = new AbortController(); c.abort("why"); const any = AbortSignal.any([new AbortController().signal, AbortSignal.abort(7)]); let made; try { new AbortSignal(); } catch (e) { made = e.name; } return [c.signal.reason, AbortSignal.abort().reason.name, any.aborted, any.reason, made, Object.prototype.toString.call(c.signal)];`,
  "abort timeout": `const s = AbortSignal.timeout(5); await new Promise((r) => setTimeout(r, 30)); return [s.aborted, s.reason && s.reason.name];`,
  "queueMicrotask order": `const seen = []; queueMicrotask(() => seen.push(2)); Promise.resolve().then(() => seen.push(3)); seen.push(1); await new Promise((r) => setTimeout(r, 1)); return seen;`,
  // Headers / Request / Response
  "headers": `const h = new Headers({ "Content-Type": "text/plain", "X-A": " 1 " }); h.append("x-a", "2"); h.append("Set-Cookie", "a=1"); h.append("set-cookie", "b=2"); return [[...h], h.get("X-A"), h.get("nope"), h.has("content-type"), h.getSetCookie(), [...h.keys()]];`,
  "headers refuse": `return [() => new Headers({ "bad name": "x" }), () => new Headers({ a: "x\\ny" }), () => new Headers([["a"]])].map((f) => { try { f(); return "made"; } catch (e) { return e.name; } });`,
  "response basics": `const r = new Response("héllo", { status: 201, statusText: "Made", headers: { "X-Y": "z" } }); return [r.status, r.ok, r.statusText, r.headers.get("content-type"), r.headers.get("x-y"), r.type, r.url, r.redirected, r.bodyUsed, await r.text(), r.bodyUsed];`,
  "response bodies": `const a = await new Response(new Uint8Array([104, 105])).text(); const b = Array.from(new Uint8Array(await new Response("hi").arrayBuffer())); const c = await Response.json({ a: [1] }).json(); const d = Response.json({}).headers.get("content-type"); const e = await new Response(null).text(); return [a, b, c, d, e];`,
  "response reuse": `const r = new Response("x"); await r.text(); try { await r.text(); return "read twice"; } catch (e) { return e.name; }`,
  "response clone": `const r = new Response("x", { status: 404 }); const c = r.clone(); return [await r.text(), await c.text(), c.status, c.ok];`,
  "response refuses": `return [() => new Response("", { status: 99 }), () => new Response("x", { status: 204 }), () => Response.redirect("https://a.b/", 200)].map((f) => { try { f(); return "made"; } catch (e) { return e.name; } });`,
  "response redirect and error": `const r = Response.redirect("https://a.b/c", 301); const e = Response.error(); return [r.status, r.headers.get("location"), e.type, e.status];`,
  "request": `const r = new Request("HTTPS://A.B/c?d#e", { method: "post", body: "x=1", headers: { "X-A": "1" } }); return [r.url, r.method, r.headers.get("content-type"), r.headers.get("x-a"), await r.text(), new Request("https://a.b", { method: "patch" }).method, new Request(r).method];`,
  "request refuses": `return [() => new Request("https://a.b", { method: "GET", body: "x" }), () => new Request("/relative"), () => new Request("https://a.b", { method: "CONNECT" }), () => new Request("https://u:p@a.b/")].map((f) => { try { f(); return "made"; } catch (e) { return e.name; } });`,
  // zod string formats use these globals
  "zod formats": `const checks = [[z.string().url(), ["https://example.com/a", "not a url", "mailto:x@y.z"]], [z.url(), ["https://example.com/a", "::"]], [z.email(), ["a@b.co", "a@b"]], [z.uuid(), ["123e4567-e89b-42d3-a456-426614174000", "nope"]], [z.base64(), ["Zm9v", "Zm9", "Zm9v!"]], [z.base64url(), ["Zm9v_-", "Zm9v+"]], [z.ipv4(), ["127.0.0.1", "256.1.1.1"]], [z.ipv6(), ["::1", "1::1::1"]], [z.jwt(), ["eyJhbGciOiJIUzI1NiJ9.eyJhIjoxfQ.sig", "a.b"]], [z.iso.datetime(), ["2020-01-01T00:00:00Z", "2020-13-01"]], [z.string().url({ protocol: /^https$/ }), ["https://a.b", "http://a.b"]], [z.hostname(), ["a.example.com", "-bad-"]]]; return checks.map(([schema, inputs]) => inputs.map((i) => schema.safeParse(i).success));`,
};
