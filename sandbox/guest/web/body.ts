/**
 * @module sandbox/guest/web/body
 * The Fetch standard's body mixin for `Request` and `Response`: `body` (a
 * ReadableStream), `bodyUsed`, `text`, `json`, `arrayBuffer`, `bytes`,
 * `blob`, `formData`. A body is held as bytes (the host gives a fetch's
 * whole body, capped, at once) until someone asks for `body`: only then is
 * a stream made (the streams script loads on first use), and from then on
 * the stream is the body. A body is read once: its bytes are handed over
 * (not copied) and let go of, so a payload costs its isolate its bytes and
 * what the tool makes of them, no more.
 *
 * A body init may be a string, a BufferSource, a Blob, a FormData (encoded
 * as multipart/form-data), URLSearchParams or a ReadableStream of bytes.
 */
import { encodeUtf8, TextDecoder, bytesOf } from "./text-codec.js";
import { Blob, blobBytes } from "./blob.js";
import { encodeMultipart, FormData, parseFormBody } from "./form-data.js";
import { bytesStream, webStreams } from "./streams.js";
import { concatBytes } from "./bytes.js";
import { structuredClone } from "./clone.js";

export type BodyInit = string | ArrayBuffer | ArrayBufferView | Blob | FormData | { toString(): string } | null | undefined;

type Reader = { read(): Promise<{ done: boolean; value?: unknown }>; releaseLock(): void };
/** The polyfill's ReadableStream, as this module uses it. */
type Stream = { locked: boolean; getReader(): Reader; tee(): [Stream, Stream] };

/** What a body holds: bytes, a stream (once asked for, or given), or nothing. */
export type BodySource = { bytes: Uint8Array | null; stream: Stream | null };

function isStream(value: unknown): value is Stream {
  if (typeof value !== "object" || value === null) return false;
  return value instanceof (webStreams().ReadableStream as unknown as new () => object);
}

/** The bytes (or stream) and the content type a body init implies. */
export function extractBody(init: BodyInit): BodySource & { type: string | null } {
  if (init === null || init === undefined) return { bytes: null, stream: null, type: null };
  if (typeof init === "string") return { bytes: encodeUtf8(init), stream: null, type: "text/plain;charset=UTF-8" };
  if (init instanceof ArrayBuffer || ArrayBuffer.isView(init)) return { bytes: bytesOf(init).slice(), stream: null, type: null };
  const blob = blobBytes(init);
  // A copy: a body's bytes are handed over when read, and a Blob's never change.
  if (blob !== undefined) return { bytes: blob.slice(), stream: null, type: (init as Blob).type === "" ? null : (init as Blob).type };
  if (init instanceof FormData) {
    const { bytes, type } = encodeMultipart(init);
    return { bytes, stream: null, type };
  }
  const URLSearchParams = (globalThis as { URLSearchParams?: Function }).URLSearchParams;
  if (typeof URLSearchParams === "function" && init instanceof URLSearchParams) {
    return { bytes: encodeUtf8(String(init)), stream: null, type: "application/x-www-form-urlencoded;charset=UTF-8" };
  }
  // Only a tool that made a stream class can hand one over: no stream class loaded, no stream here.
  if (typeof (init as { getReader?: unknown }).getReader === "function" && isStream(init)) {
    // The polyfill's mark of a stream something has read from, even after the reader let go.
    if ((init as Stream).locked || (init as { _disturbed?: boolean })._disturbed === true) throw new TypeError("Response body object should not be disturbed or locked");
    return { bytes: null, stream: init as Stream, type: null };
  }
  return { bytes: encodeUtf8(String(init)), stream: null, type: "text/plain;charset=UTF-8" };
}

/** Reads a byte stream to its end; a chunk that is not a Uint8Array is a TypeError. */
async function readAll(stream: Stream): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!(value instanceof Uint8Array)) throw new TypeError("Received non-Uint8Array chunk");
    chunks.push(value);
  }
  return chunks.length === 0 ? new Uint8Array(0) : concatBytes(chunks);
}

export class Body {
  #bytes: Uint8Array | null = null;
  #stream: Stream | null = null;
  #used = false;

  protected setBody(source: BodySource): void {
    this.#bytes = source.bytes;
    this.#stream = source.stream;
  }
  /** The body as it is now, for a clone or a Request made from this one (the stream is teed: this keeps one branch). */
  protected takeBodySource(): BodySource {
    if (this.#stream === null) return { bytes: this.#bytes, stream: null };
    const [mine, theirs] = this.#stream.tee();
    this.#stream = mine;
    // Fetch's clone tees with cloneForBranch2: the clone's chunks are copies, not the same buffers.
    const copies = new (webStreams().TransformStream as unknown as new (t: object) => { readable: Stream; writable: unknown })({
      transform(chunk: unknown, controller: { enqueue(chunk: unknown): void }) {
        controller.enqueue(structuredClone(chunk));
      },
    });
    return { bytes: null, stream: (theirs as unknown as { pipeThrough(pair: object): Stream }).pipeThrough(copies) };
  }
  /** The body handed to a Request made from this one, which takes it (the Fetch standard): this one is used from now on. */
  protected transferBodySource(): BodySource {
    const source = { bytes: this.#bytes, stream: this.#stream };
    this.#bytes = null;
    this.#stream = null;
    this.#used = true;
    return source;
  }
  /** Bytes, unless the body is a stream. */
  protected bodyBytes(): Uint8Array | null {
    return this.#bytes;
  }
  /** The content type the body is read with (blob's type, formData's parser). */
  protected bodyContentType(): string | null {
    return null;
  }

  get body(): unknown {
    if (this.#stream === null && this.#bytes !== null) {
      this.#stream = bytesStream(this.#bytes) as Stream;
      this.#bytes = null;
    } else if (this.#stream === null && this.#used) {
      // Read as bytes before anyone asked for the stream: the stream it would have been is read, so locked and disturbed.
      const stream = bytesStream(new Uint8Array(0)) as Stream & { getReader(): { read(): Promise<unknown> } };
      void stream.getReader().read();
      this.#stream = stream;
    }
    return this.#stream;
  }

  get bodyUsed(): boolean {
    if (this.#used) return true;
    // The polyfill's own mark of a stream something has read from (its reader's first read).
    return this.#stream !== null && (this.#stream as { _disturbed?: boolean })._disturbed === true;
  }

  async #consume(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    const stream = this.#stream;
    if (stream !== null && stream.locked) throw new TypeError("Body is unusable: Body is locked");
    const bytes = this.#bytes;
    // Fetch: consuming a null body reads nothing, so the body is not used.
    if (stream === null && bytes === null) return new Uint8Array(0);
    this.#used = true;
    this.#bytes = null;
    if (stream !== null) return readAll(stream);
    return bytes ?? new Uint8Array(0);
  }

  // The body's bytes are its own (extractBody copied the init; a host body is
  // this isolate's copy) and are read once: handed over as they are.
  async bytes(): Promise<Uint8Array> {
    return this.#consume();
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#consume();
    return (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#consume());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async blob(): Promise<Blob> {
    const bytes = await this.#consume();
    return new Blob([bytes], { type: this.bodyContentType() ?? "" });
  }
  async formData(): Promise<FormData> {
    return parseFormBody(await this.#consume(), this.bodyContentType());
  }
}
