/**
 * @module sandbox/worker/text-decode-bridge.test
 * The worker's side of TextDecoder's legacy encodings answers every input,
 * however wrong, with a name, a text or an error code, and never throws.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createDecodeCallbacks } from "./text-decode-bridge.js";

const bytes = (...values: number[]) => new Uint8Array(values).buffer;

describe("text-decode-bridge", () => {
  it("resolves labels as Node does, and refuses what is no label", () => {
    const { encoding } = createDecodeCallbacks();
    assert.equal(encoding("sjis"), "shift_jis");
    assert.equal(encoding("replacement"), "");
    for (const bad of [undefined, 7, {}, "", "x".repeat(41), "no-such-encoding"]) assert.equal(encoding(bad), "");
  });

  it("decodes, streams across chunks and reports invalid data as a code", () => {
    const { decode } = createDecodeCallbacks();
    assert.equal(decode(1, "shift_jis", 0, bytes(0x82), true), "");
    assert.equal(decode(1, "shift_jis", 0, bytes(0xa0), false), "あ");
    assert.equal(decode(2, "shift_jis", 1, bytes(0x82), false), 1);
    assert.equal(decode(3, "shift_jis", 0, bytes(0x82), false), "\ufffd");
  });

  it("refuses wrong types and oversized chunks without throwing", () => {
    const { decode } = createDecodeCallbacks();
    const hostile = { get length() { throw new Error("getter"); } };
    assert.equal(decode("1", "shift_jis", 0, bytes(1), false), 3);
    assert.equal(decode(1.5, "shift_jis", 0, bytes(1), false), 3);
    assert.equal(decode(1, {}, 0, bytes(1), false), 3);
    assert.equal(decode(1, "shift_jis", 0, hostile, false), 3);
    assert.equal(decode(1, "shift_jis", 0, new ArrayBuffer((1 << 20) + 1), false), 3);
    assert.equal(decode(1, "no-such-encoding", 0, bytes(1), false), 2);
    assert.equal(decode(1, "shift_jis", "0", bytes(1), false), 3);
  });

  it("keeps at most 256 streaming decoders, dropping the least recently used", () => {
    const { decode } = createDecodeCallbacks();
    for (let handle = 1; handle <= 300; handle++) decode(handle, "shift_jis", 0, bytes(0x82), true);
    assert.equal(decode(300, "shift_jis", 0, bytes(0xa0), false), "あ");
    // Handle 1 was dropped: its partial byte is gone, and its next chunk starts afresh.
    assert.equal(decode(1, "shift_jis", 0, bytes(0x41), false), "A");
  });
});
