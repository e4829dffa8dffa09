/**
 * @module sandbox/guest/web/codecs.property.test
 * The guest's one-pass codecs agree with Node's on generated input, at every
 * size around their chunk edges: base64 each way (strict as `atob`,
 * forgiving as Buffer reads it), binary strings, UTF-8 encoding (lone
 * surrogates included) and decoding (ASCII runs, multi-byte sequences,
 * ill-formed bytes, streamed in pieces). The capability payloads go through
 * these, so a wrong byte here is a wrong file or body.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { atob, btoa, bytesToLatin1, decodeBase64, encodeBase64, latin1ToBytes } from "./base64.js";
import { encodeUtf8, TextDecoder } from "./text-codec.js";

/** Lengths around the 12 KiB and 16 KiB chunk edges, and small ones. */
const length = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(12287, 12288, 12289, 16383, 16384, 16385, 3 * 12288 + 1), fc.integer({ min: 0, max: 70_000 }));
const bytes = length.chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
/** Mostly ASCII with runs, some multi-byte and ill-formed bytes: what real text and hostile input look like. */
const textBytes = fc.array(fc.oneof({ weight: 6, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => b.map((x) => x & 0x7f)) }, { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }).map((s) => new Uint8Array(Buffer.from(s))) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 6 }) }), { maxLength: 400 }).map((parts) => new Uint8Array(Buffer.concat(parts)));

describe("guest codecs against Node's", () => {
  it("encodeBase64 is Buffer's base64; decodeBase64 reads it back", () => {
    fc.assert(
      fc.property(bytes, (input) => {
        const text = encodeBase64(input);
        assert.equal(text, Buffer.from(input).toString("base64"));
        assert.deepEqual(decodeBase64(text, true), input);
        assert.deepEqual(decodeBase64(text, false), input);
      }),
      { numRuns: 150 },
    );
  });

  it("forgiving base64 reads what Buffer reads, noise and all", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AZaz09+/= \n-_*é".split("")), maxLength: 200 }), (text) => {
        assert.deepEqual(Buffer.from(decodeBase64(text, true)), Buffer.from(text, "base64"));
      }),
      { numRuns: 2000 },
    );
  });

  it("atob and btoa answer as Node's, or throw where Node's throw", () => {
    const same = (ours: () => string, node: () => string) => {
      let expected: string | Error;
      try {
        expected = node();
      } catch (error) {
        expected = error as Error;
      }
      if (expected instanceof Error) assert.throws(ours, (error: Error) => error.name === expected.name);
      else assert.equal(ours(), expected);
    };
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AZaz09+/= \t\n\f\r=-é".split("")), maxLength: 60 }), (text) => same(() => atob(text), () => globalThis.atob(text))),
      { numRuns: 600 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), fc.constant("€")), maxLength: 60 }), (text) => same(() => btoa(text), () => globalThis.btoa(text))),
      { numRuns: 400 },
    );
  });

  it("binary strings: bytesToLatin1 and latin1ToBytes are Buffer's latin1 (a char past U+00FF is '?')", () => {
    fc.assert(
      fc.property(bytes, (input) => {
        const text = bytesToLatin1(input);
        assert.equal(text, Buffer.from(input).toString("latin1"));
        assert.deepEqual(latin1ToBytes(text), input);
      }),
      { numRuns: 100 },
    );
    assert.deepEqual([...latin1ToBytes("a€b")], [0x61, 0x3f, 0x62]);
  });

  it("encodeUtf8 is Buffer's UTF-8, lone surrogates as U+FFFD, in one buffer of exactly its size", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom("a", "é", "€", "😀", "\ud800", "\udfff"), fc.string({ unit: "binary", maxLength: 3 })), maxLength: 300 }), (text) => {
        const out = encodeUtf8(text);
        assert.deepEqual(Buffer.from(out), Buffer.from(text, "utf8"));
        assert.equal(out.buffer.byteLength, out.byteLength);
      }),
      { numRuns: 500 },
    );
  });

  it("TextDecoder decodes as Node's, whole and streamed in pieces, fatal or not", () => {
    fc.assert(
      fc.property(textBytes, fc.integer({ min: 1, max: 50 }), fc.boolean(), (input, piece, fatal) => {
        let expected: string | "throws";
        try {
          expected = new globalThis.TextDecoder("utf-8", { fatal }).decode(input);
        } catch {
          expected = "throws";
        }
        const whole = () => new TextDecoder("utf-8", { fatal }).decode(input);
        if (expected === "throws") assert.throws(whole);
        else {
          assert.equal(whole(), expected);
          const decoder = new TextDecoder("utf-8", { fatal });
          let streamed = "";
          for (let at = 0; at < input.length; at += piece) streamed += decoder.decode(input.subarray(at, at + piece), { stream: true });
          assert.equal(streamed + decoder.decode(), expected);
        }
      }),
      { numRuns: 400 },
    );
  });
});
