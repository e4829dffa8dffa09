/**
 * @module sandbox/guest/web/base64
 * Base64 and binary strings, each way in one pass over bytes: `atob` and
 * `btoa` as the HTML standard defines them (binary strings, one char per
 * byte; forgiving base64 on the way in: ASCII whitespace ignored, padding
 * optional; `InvalidCharacterError` for anything else), and the byte-level
 * helpers ctx.fs's encodings use. Text is built one string per 16 KiB
 * chunk, never a string per character: a payload's text costs its isolate
 * its own size, not tens of bytes per byte.
 */
import { DOMException } from "./dom-exception.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = new Uint8Array(64);
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) {
  CODES[i] = ALPHABET.charCodeAt(i);
  DECODE[ALPHABET.charCodeAt(i)] = i;
}
/** Buffer's reading also takes base64url's two letters (`-` and `_`). */
const DECODE_FORGIVING = DECODE.slice();
DECODE_FORGIVING[0x2d] = 62;
DECODE_FORGIVING[0x5f] = 63;
const PAD = 0x3d;
/** Bytes per chunk of text made at once: a multiple of 3, so only the last chunk is padded. */
const CHUNK_BYTES = 3 * 4096;
const chunk = new Uint8Array((CHUNK_BYTES / 3) * 4);

const fromCodes = (codes: Uint8Array): string => String.fromCharCode.apply(null, codes as unknown as number[]);

/** Bytes as base64 text. */
export function encodeBase64(bytes: Uint8Array): string {
  let text = "";
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    const end = Math.min(start + CHUNK_BYTES, bytes.length);
    let o = 0;
    for (let i = start; i < end; i += 3) {
      const a = bytes[i] as number;
      const b = i + 1 < end ? (bytes[i + 1] as number) : 0;
      const c = i + 2 < end ? (bytes[i + 2] as number) : 0;
      chunk[o++] = CODES[a >> 2] as number;
      chunk[o++] = CODES[((a & 3) << 4) | (b >> 4)] as number;
      chunk[o++] = i + 1 < end ? (CODES[((b & 15) << 2) | (c >> 6)] as number) : PAD;
      chunk[o++] = i + 2 < end ? (CODES[c & 63] as number) : PAD;
    }
    text += fromCodes(chunk.subarray(0, o));
  }
  return text;
}

/**
 * Base64 text as bytes. `forgiving`: as Node's Buffer reads it (base64url's
 * `-` and `_` taken too, anything else outside the alphabet skipped, the
 * first `=` ends the data); otherwise the
 * text must be base64 already stripped of whitespace (atob checks the rest).
 */
export function decodeBase64(text: string, forgiving: boolean): Uint8Array {
  const table = forgiving ? DECODE_FORGIVING : DECODE;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === PAD) break;
    if (code < 128 && (table[code] as number) >= 0) count++;
    else if (!forgiving) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  }
  const out = new Uint8Array(Math.floor((count * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length && o < out.length; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (table[code] as number) : -1;
    if (value < 0) continue;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

/** Bytes as a binary string (one char per byte). */
export function bytesToLatin1(bytes: Uint8Array): string {
  let text = "";
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) text += fromCodes(bytes.subarray(start, Math.min(start + CHUNK_BYTES, bytes.length)));
  return text;
}

/** A binary string's bytes; a char past U+00FF is `onWide`'s (or, without it, "?"). */
export function latin1ToBytes(text: string, onWide?: () => never): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) {
      if (onWide !== undefined) onWide();
      out[i] = 0x3f;
    } else out[i] = code;
  }
  return out;
}

function isAsciiWhitespace(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d || code === 0x20;
}

export function btoa(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
  return encodeBase64(
    latin1ToBytes(String(data), () => {
      throw new DOMException("Invalid character", "InvalidCharacterError");
    }),
  );
}

export function atob(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
  let text = String(data);
  let spaced = false;
  for (let i = 0; i < text.length && !spaced; i++) spaced = isAsciiWhitespace(text.charCodeAt(i));
  if (spaced) text = text.replace(/[\t\n\f\r ]/g, "");
  let length = text.length;
  if (length % 4 === 0 && length > 0 && text.charCodeAt(length - 1) === PAD) {
    length--;
    if (text.charCodeAt(length - 1) === PAD) length--;
  }
  if (length % 4 === 1) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  // A `=` left inside the data is not base64: decodeBase64 (strict) refuses it.
  const data64 = length === text.length ? text : text.slice(0, length);
  for (let i = 0; i < data64.length; i++) {
    if (data64.charCodeAt(i) === PAD) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  }
  return bytesToLatin1(decodeBase64(data64, false));
}
