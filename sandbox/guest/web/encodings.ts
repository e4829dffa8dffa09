/**
 * @module sandbox/guest/web/encodings
 * The Encoding standard's labels and its encodings beyond UTF-8, for
 * TextDecoder. A label is trimmed of ASCII whitespace only and lowercased in
 * ASCII; the UTF-8 labels are known here, every other label is resolved by
 * the worker's own Node (full ICU: its table is the standard's), and bytes of
 * those encodings are decoded there too, through one narrow bridge: plain
 * bytes in (a copy, at most CHUNK_BYTES a crossing), a string out, within the
 * calling tool's call and its clock (sandbox/worker/text-decode-bridge.ts).
 * `x-user-defined` and `windows-1252` are decoded here (Node 20 decodes
 * windows-1252 as ISO-8859-1, a known bug of its). Node knows no ISO-8859-16: its labels
 * throw a RangeError, as for an unknown label.
 */

/** The worker's side (GuestLent `__corral_encoding` / `__corral_decode`). */
export type DecodeBridge = {
  /** The encoding's name for a label, lowercase ("shift_jis"), or "" when there is none. */
  encoding(label: string): string;
  /**
   * Decodes `bytes` with decoder `handle` (its state kept by the worker while
   * `stream` is true); answers the text, or a DECODE_ERROR code.
   */
  decode(handle: number, encoding: string, flags: number, bytes: ArrayBuffer, stream: boolean): string | number;
};

export const DECODE_FATAL = 1;
export const DECODE_IGNORE_BOM = 2;
/** What the worker answers instead of text. */
export const DECODE_ERROR = { invalidData: 1, unsupported: 2, refused: 3 } as const;
/** Bytes per crossing: a larger input crosses in pieces, as a stream, so no input is refused for its size. */
export const CHUNK_BYTES = 1 << 20;

const UTF8_LABELS = new Set(["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"]);
const ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

let bridge: DecodeBridge | undefined;
let nextHandle = 1;

/** Set once by installWebGlobals, before any tool code runs. */
export function setDecodeBridge(value: DecodeBridge): void {
  bridge ??= value;
}

function asciiLowercase(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/** The encoding's name for `label` ("utf-8", "windows-1252", ...), or undefined (TextDecoder then throws a RangeError). */
export function resolveEncoding(label: string): string | undefined {
  const name = asciiLowercase(label.replace(ASCII_WHITESPACE, ""));
  if (UTF8_LABELS.has(name)) return "utf-8";
  if (name === "x-user-defined") return name;
  // A label of the standard is short and printable ASCII; anything else is no label (and need not cross).
  if (name.length === 0 || name.length > 40 || !/^[\x21-\x7e]+$/.test(name) || bridge === undefined) return undefined;
  const resolved = bridge.encoding(name);
  return typeof resolved === "string" && /^[a-z0-9_-]{1,40}$/.test(resolved) ? resolved : undefined;
}

/** A TextDecoder's state for an encoding other than UTF-8. */
export class LegacyDecoder {
  readonly #handle = nextHandle++;
  readonly #encoding: string;
  readonly #flags: number;

  constructor(encoding: string, fatal: boolean, ignoreBOM: boolean) {
    this.#encoding = encoding;
    this.#flags = (fatal ? DECODE_FATAL : 0) | (ignoreBOM ? DECODE_IGNORE_BOM : 0);
  }

  decode(bytes: Uint8Array, stream: boolean): string {
    if (this.#encoding === "x-user-defined") return decodeSingleByte(bytes, userDefined);
    if (this.#encoding === "windows-1252") return decodeSingleByte(bytes, windows1252);
    let out = "";
    let offset = 0;
    do {
      const end = Math.min(bytes.length, offset + CHUNK_BYTES);
      const last = end === bytes.length;
      out += this.#cross(bytes.slice(offset, end).buffer, last ? stream : true);
      offset = end;
    } while (offset < bytes.length);
    return out;
  }

  #cross(chunk: ArrayBuffer, stream: boolean): string {
    if (bridge === undefined) throw new RangeError(`The "${this.#encoding}" encoding is not supported`);
    const answer = bridge.decode(this.#handle, this.#encoding, this.#flags, chunk, stream);
    if (typeof answer === "string") return answer;
    if (answer === DECODE_ERROR.invalidData) throw new TypeError(`The encoded data was not valid for encoding ${this.#encoding}`);
    throw new RangeError(`The "${this.#encoding}" encoding is not supported`);
  }
}

/** x-user-defined: 0x80-0xFF to U+F780-U+F7FF. */
const userDefined = (byte: number): number => 0xf780 + byte - 0x80;

/** The Encoding standard's index-windows-1252 for 0x80-0x9F; 0xA0-0xFF are themselves. */
const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];
const windows1252 = (byte: number): number => (byte < 0xa0 ? (WINDOWS_1252_C1[byte - 0x80] as number) : byte);

/** A single-byte encoding whose bytes below 0x80 are ASCII; `high` maps the others. Never fails, keeps no state. */
function decodeSingleByte(bytes: Uint8Array, high: (byte: number) => number): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    const units: number[] = [];
    const end = Math.min(bytes.length, i + 8192);
    for (let j = i; j < end; j++) {
      const byte = bytes[j] as number;
      units.push(byte < 0x80 ? byte : high(byte));
    }
    out += String.fromCharCode.apply(null, units);
  }
  return out;
}
