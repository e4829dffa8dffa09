/**
 * @module sandbox/guest/web/blob
 * `Blob` and `File` after the File API standard, over bytes held in memory.
 * Written here, not taken from a package: the WPT-tested ones (fetch-blob,
 * formdata-node) import Node's fs and streams, which a bare V8 context has
 * not; a Blob in memory is small. A Blob's bytes never change, so `slice`
 * shares them (a view, no copy) and each read hands out a copy. `stream()`
 * is a byte stream of the Streams standard (loaded on first use).
 */
import { encodeUtf8, TextDecoder } from "./text-codec.js";
import { bytesStream } from "./streams.js";
import { concatBytes } from "./bytes.js";
import { intrinsics as I } from "../intrinsics.js";

const BYTES = new WeakMap<object, Uint8Array>();

/** A Blob's bytes, shared (never write to them), or undefined for anything that is not one of ours. */
export function blobBytes(value: unknown): Uint8Array | undefined {
  return typeof value === "object" && value !== null ? BYTES.get(value) : undefined;
}

export function isBlob(value: unknown): value is Blob {
  return blobBytes(value) !== undefined;
}

/** File API's type rule: printable ASCII only (else ""), lowercased. */
function normaliseType(type: unknown): string {
  const text = type === undefined ? "" : String(type);
  return /^[\x20-\x7e]*$/.test(text) ? text.toLowerCase() : "";
}

function partBytes(part: unknown, native: boolean): Uint8Array {
  const blob = blobBytes(part);
  if (blob !== undefined) return blob;
  if (part instanceof ArrayBuffer) return new Uint8Array(part.slice(0));
  if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.byteLength) as ArrayBuffer);
  const text = String(part);
  // endings: "native" writes every line break as this platform's (Linux: LF).
  return encodeUtf8(native ? text.replace(/\r\n?/g, "\n") : text);
}

type BlobOptions = { type?: string; endings?: "transparent" | "native" };

export class Blob {
  readonly #type: string;

  // Rest parameters: WebIDL's optional arguments do not count in `length` (Blob.length is 0, File.length 2).
  constructor(...args: [blobParts?: Iterable<unknown>, options?: BlobOptions]) {
    const blobParts = args[0];
    const options = args[1];
    if (blobParts !== undefined && (typeof blobParts !== "object" || blobParts === null) && typeof blobParts !== "function") {
      throw new TypeError("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
    }
    // WebIDL converts the arguments left to right: every part (a string part's toString runs now), then the options.
    const converted: unknown[] = [];
    if (blobParts !== undefined) {
      // @@iterator is read once (WebIDL's sequence conversion) and iterated with.
      const method = (blobParts as { [Symbol.iterator]?: unknown })[Symbol.iterator];
      if (typeof method !== "function") throw new TypeError("Failed to construct 'Blob': The object must have a callable @@iterator property.");
      const sequence = { [Symbol.iterator]: () => I.apply(method, blobParts, []) as Iterator<unknown> };
      for (const part of sequence as Iterable<unknown>) converted.push(blobBytes(part) !== undefined || part instanceof ArrayBuffer || ArrayBuffer.isView(part) ? part : String(part));
    }
    if (options !== undefined && options !== null && typeof options !== "object" && typeof options !== "function") {
      throw new TypeError("Failed to construct 'Blob': The provided value is not of type 'BlobPropertyBag'.");
    }
    const endings = options?.endings === undefined ? "transparent" : String(options.endings);
    if (endings !== "transparent" && endings !== "native") throw new TypeError(`Failed to construct 'Blob': The provided value '${endings}' is not a valid enum value of type EndingType.`);
    this.#type = normaliseType(options?.type);
    const parts: Uint8Array[] = [];
    for (const part of converted) parts.push(partBytes(part, endings === "native"));
    BYTES.set(this, parts.length === 0 ? new Uint8Array(0) : concatBytes(parts));
  }

  get size(): number {
    return own(this).byteLength;
  }
  get type(): string {
    own(this);
    return this.#type;
  }

  slice(start?: number, end?: number, contentType?: string): Blob {
    const bytes = own(this);
    const size = bytes.byteLength;
    const clamp = (value: number | undefined, fallback: number) => {
      if (value === undefined) return fallback;
      const n = Math.trunc(Number(value)) || 0;
      return n < 0 ? Math.max(size + n, 0) : Math.min(n, size);
    };
    const from = clamp(start, 0);
    const to = clamp(end, size);
    const blob = new Blob([], { type: contentType === undefined ? "" : contentType });
    BYTES.set(blob, bytes.subarray(from, Math.max(from, to)));
    return blob;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return own(this).slice().buffer as ArrayBuffer;
  }
  async bytes(): Promise<Uint8Array> {
    return own(this).slice();
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(own(this));
  }
  stream(): unknown {
    return bytesStream(own(this));
  }
}

function own(blob: Blob): Uint8Array {
  const bytes = BYTES.get(blob);
  if (bytes === undefined) throw new TypeError("Illegal invocation: not a Blob");
  return bytes;
}

export class File extends Blob {
  readonly #name: string;
  readonly #lastModified: number;
  constructor(fileBits: Iterable<unknown>, fileName: string, ...rest: [options?: BlobOptions & { lastModified?: number }]) {
    if (arguments.length < 2) throw new TypeError(`Failed to construct 'File': 2 arguments required, but only ${arguments.length} present.`);
    const options = rest[0];
    super(fileBits, options);
    this.#name = String(fileName);
    const lastModified = options?.lastModified;
    this.#lastModified = lastModified === undefined ? Date.now() : Math.trunc(Number(lastModified)) || 0;
  }
  get name(): string {
    return this.#name;
  }
  get lastModified(): number {
    return this.#lastModified;
  }
  get webkitRelativePath(): string {
    return "";
  }
}

for (const [target, name] of [[Blob, "Blob"], [File, "File"]] as const) {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}
