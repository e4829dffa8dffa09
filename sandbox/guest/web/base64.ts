/**
 * @module sandbox/guest/web/base64
 * `atob` and `btoa` as the HTML standard defines them: binary strings (one
 * char per byte), forgiving base64 on the way in (ASCII whitespace ignored,
 * padding optional), `InvalidCharacterError` for anything else.
 */
import { DOMException } from "./dom-exception.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

function isAsciiWhitespace(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d || code === 0x20;
}

export function btoa(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
  const text = String(data);
  let out = "";
  for (let i = 0; i < text.length; i += 3) {
    const a = text.charCodeAt(i);
    const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    if (a > 0xff || b > 0xff || c > 0xff) throw new DOMException("Invalid character", "InvalidCharacterError");
    out += ALPHABET[a >> 2];
    out += ALPHABET[((a & 3) << 4) | (b >> 4)];
    out += i + 1 < text.length ? ALPHABET[((b & 15) << 2) | (c >> 6)] : "=";
    out += i + 2 < text.length ? ALPHABET[c & 63] : "=";
  }
  return out;
}

export function atob(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
  const text = String(data);
  const codes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isAsciiWhitespace(code)) codes.push(code);
  }
  if (codes.length % 4 === 0 && codes.length > 0 && codes[codes.length - 1] === 0x3d) {
    codes.pop();
    if (codes[codes.length - 1] === 0x3d) codes.pop();
  }
  if (codes.length % 4 === 1) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const code of codes) {
    const value = code < 128 ? (DECODE[code] as number) : -1;
    if (value < 0) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  return out;
}
