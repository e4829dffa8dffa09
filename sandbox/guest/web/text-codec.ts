/**
 * @module sandbox/guest/web/text-codec
 * `TextEncoder` and `TextDecoder` for UTF-8, after the WHATWG Encoding
 * standard: lone surrogates encode as U+FFFD; the decoder replaces each
 * maximal ill-formed subsequence with one U+FFFD (or throws when `fatal`),
 * drops a leading BOM unless `ignoreBOM`, and keeps a partial sequence
 * between `{ stream: true }` calls. The standard's other encodings are
 * decoded through ./encodings.ts (labels resolved as the standard says).
 */
import { LegacyDecoder, resolveEncoding } from "./encodings.js";

const REPLACEMENT = 0xfffd;
/** The longest run of ASCII turned into one string at once. */
const ASCII_RUN = 16384;

/** Bytes of a BufferSource, without copying. */
export function bytesOf(input: unknown, what = "input"): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (typeof SharedArrayBuffer === "function" && input instanceof SharedArrayBuffer) return new Uint8Array(input);
  throw new TypeError(`The "${what}" argument must be an instance of ArrayBuffer or ArrayBufferView`);
}

/** UTF-8 bytes of `text`, in one allocation of their exact size (a payload costs its bytes once). */
export function encodeUtf8(text: string): Uint8Array {
  const out = new Uint8Array(utf8Length(text));
  encodeInto(text, out);
  return out;
}

/** The UTF-8 length of `text` (a lone surrogate is U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) length += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 2; // two units, four bytes
      i++;
    } else length += 2;
  }
  return length;
}

function encodeInto(text: string, dest: Uint8Array): { read: number; written: number } {
  let read = 0;
  let written = 0;
  while (read < text.length) {
    let code = text.charCodeAt(read);
    let units = 1;
    if (code >= 0xd800 && code <= 0xdbff && read + 1 < text.length) {
      const next = text.charCodeAt(read + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        units = 2;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = REPLACEMENT;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (written + size > dest.length) break;
    if (size === 1) dest[written++] = code;
    else if (size === 2) {
      dest[written++] = 0xc0 | (code >> 6);
      dest[written++] = 0x80 | (code & 63);
    } else if (size === 3) {
      dest[written++] = 0xe0 | (code >> 12);
      dest[written++] = 0x80 | ((code >> 6) & 63);
      dest[written++] = 0x80 | (code & 63);
    } else {
      dest[written++] = 0xf0 | (code >> 18);
      dest[written++] = 0x80 | ((code >> 12) & 63);
      dest[written++] = 0x80 | ((code >> 6) & 63);
      dest[written++] = 0x80 | (code & 63);
    }
    read += units;
  }
  return { read, written };
}

export class TextEncoder {
  get encoding(): string {
    return "utf-8";
  }
  encode(input: unknown = ""): Uint8Array {
    return encodeUtf8(String(input));
  }
  encodeInto(source: unknown, destination: Uint8Array): { read: number; written: number } {
    if (!(destination instanceof Uint8Array)) throw new TypeError('The "dest" argument must be an instance of Uint8Array');
    return encodeInto(String(source), destination);
  }
}

export class TextDecoder {
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  readonly #encoding: string;
  readonly #legacy: LegacyDecoder | undefined;
  // The decoder's state between streamed chunks.
  #needed = 0;
  #seen = 0;
  #codePoint = 0;
  #lower = 0x80;
  #upper = 0xbf;
  #bomSeen = false;

  constructor(label: unknown = "utf-8", options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const encoding = resolveEncoding(String(label));
    if (encoding === undefined) throw new RangeError(`The "${String(label)}" encoding is not supported`);
    if (options !== undefined && options !== null && typeof options !== "object" && typeof options !== "function") {
      throw new TypeError('The "options" argument must be of type object');
    }
    this.#encoding = encoding;
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
    this.#legacy = encoding === "utf-8" ? undefined : new LegacyDecoder(encoding, this.#fatal, this.#ignoreBOM);
  }
  get encoding(): string {
    return this.#encoding;
  }
  get fatal(): boolean {
    return this.#fatal;
  }
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  decode(input?: unknown, options: { stream?: boolean } = {}): string {
    const bytes = input === undefined ? new Uint8Array(0) : bytesOf(input);
    const stream = Boolean(options?.stream);
    if (this.#legacy !== undefined) return this.#legacy.decode(bytes, stream);
    const units: number[] = [];
    let out = "";
    const flush = () => {
      out += String.fromCharCode.apply(null, units);
      units.length = 0;
    };
    const emit = (code: number) => {
      if (!this.#bomSeen) {
        this.#bomSeen = true;
        if (code === 0xfeff && !this.#ignoreBOM) return;
      }
      if (code > 0xffff) {
        code -= 0x10000;
        units.push(0xd800 + (code >> 10), 0xdc00 + (code & 0x3ff));
      } else units.push(code);
      if (units.length >= 8192) flush();
    };
    const fail = () => {
      if (this.#fatal) {
        this.#reset(true);
        throw new TypeError("The encoded data was not valid for encoding utf-8");
      }
      emit(REPLACEMENT);
    };
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i] as number;
      if (this.#needed === 0 && byte <= 0x7f) {
        // A run of ASCII becomes text a chunk at a time, not a char at a time.
        let end = i + 1;
        while (end < bytes.length && end - i < ASCII_RUN && (bytes[end] as number) <= 0x7f) end++;
        if (end - i > 16) {
          flush();
          this.#bomSeen = true;
          out += String.fromCharCode.apply(null, bytes.subarray(i, end) as unknown as number[]);
        } else for (let j = i; j < end; j++) emit(bytes[j] as number);
        i = end - 1;
        continue;
      }
      if (this.#needed === 0) {
        if (byte <= 0x7f) emit(byte);
        else if (byte >= 0xc2 && byte <= 0xdf) {
          this.#needed = 1;
          this.#codePoint = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) this.#lower = 0xa0;
          if (byte === 0xed) this.#upper = 0x9f;
          this.#needed = 2;
          this.#codePoint = byte & 0xf;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) this.#lower = 0x90;
          if (byte === 0xf4) this.#upper = 0x8f;
          this.#needed = 3;
          this.#codePoint = byte & 0x7;
        } else fail();
        continue;
      }
      if (byte < this.#lower || byte > this.#upper) {
        this.#reset(false);
        i--; // the byte starts afresh
        fail();
        continue;
      }
      this.#lower = 0x80;
      this.#upper = 0xbf;
      this.#codePoint = (this.#codePoint << 6) | (byte & 0x3f);
      if (++this.#seen === this.#needed) {
        const code = this.#codePoint;
        this.#reset(false);
        emit(code);
      }
    }
    if (!stream) {
      if (this.#needed !== 0) {
        this.#reset(false);
        fail();
      }
      this.#bomSeen = false;
    }
    flush();
    return out;
  }

  #reset(all: boolean): void {
    this.#needed = 0;
    this.#seen = 0;
    this.#codePoint = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
    if (all) this.#bomSeen = false;
  }
}
