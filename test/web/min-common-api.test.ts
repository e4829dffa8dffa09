/**
 * @module test/web/min-common-api.test
 * Every interface and global of WinterTC's Minimum Common API
 * (min-common-api.proposal.wintertc.org) exists in a pure tool, as the kind
 * of value the standard defines, under its standard name. The WPT run
 * (scripts/wpt/run.mjs) measures how well each behaves; this checks none is
 * missing, in every test run.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { toolSource, withHost } from "../helpers/host.js";

const INTERFACES = [
  "AbortController", "AbortSignal", "Blob", "ByteLengthQueuingStrategy", "CompressionStream", "CountQueuingStrategy",
  "Crypto", "CryptoKey", "CustomEvent", "DecompressionStream", "DOMException", "ErrorEvent", "Event", "EventTarget",
  "File", "FormData", "Headers", "Performance", "PerformanceEntry", "PerformanceMark", "PerformanceMeasure",
  "ReadableByteStreamController", "ReadableStream", "ReadableStreamBYOBReader", "ReadableStreamBYOBRequest",
  "ReadableStreamDefaultController", "ReadableStreamDefaultReader", "Request", "Response", "SubtleCrypto",
  "TextDecoder", "TextDecoderStream", "TextEncoder", "TextEncoderStream", "TransformStream",
  "TransformStreamDefaultController", "URL", "URLPattern", "URLSearchParams", "WritableStream",
  "WritableStreamDefaultController", "WritableStreamDefaultWriter",
  "WebAssembly.Global", "WebAssembly.Instance", "WebAssembly.Memory", "WebAssembly.Module", "WebAssembly.Table",
  "WebAssembly.CompileError", "WebAssembly.LinkError", "WebAssembly.RuntimeError",
];

/** Each global with the type of value it is; a dotted name is a member. */
const GLOBALS: Record<string, string> = {
  globalThis: "object", self: "object", atob: "function", btoa: "function", console: "object", crypto: "object",
  fetch: "function", navigator: "object", "navigator.userAgent": "string", performance: "object",
  "performance.now": "function", "performance.timeOrigin": "number", queueMicrotask: "function",
  reportError: "function", setTimeout: "function", clearTimeout: "function", setInterval: "function",
  clearInterval: "function", structuredClone: "function", WebAssembly: "object", "WebAssembly.compile": "function",
  "WebAssembly.compileStreaming": "function", "WebAssembly.instantiate": "function",
  "WebAssembly.instantiateStreaming": "function", "WebAssembly.validate": "function",
  addEventListener: "function", removeEventListener: "function", dispatchEvent: "function",
};

const PROBE = `
  const read = (name) => name.split(".").reduce((o, k) => (o == null ? undefined : o[k]), globalThis);
  const out = {};
  for (const name of input.interfaces) {
    const v = read(name);
    out[name] = typeof v !== "function" ? typeof v : v.name === name.split(".").pop() && typeof v.prototype === "object" ? "interface" : "misnamed " + v.name;
  }
  for (const name of input.globals) out[name] = typeof read(name);
  return out;`;

describe("WinterTC's Minimum Common API in a tool", { timeout: 60_000 }, () => {
  it("has every interface (a named class) and every global, of the standard's type", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({
        source: "agent:mca",
        code: toolSource({ name: "mca", run: PROBE, input: "z.object({ interfaces: z.array(z.string()), globals: z.array(z.string()) })" }),
      });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("mca", { interfaces: INTERFACES, globals: Object.keys(GLOBALS) });
      assert.ok(result.ok, JSON.stringify(result));
      const expected = { ...Object.fromEntries(INTERFACES.map((name) => [name, "interface"])), ...GLOBALS };
      assert.deepEqual(result.structured, expected);
    });
  });
});
