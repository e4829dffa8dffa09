/**
 * @module sandbox/guest/web/body
 * The Fetch standard's body mixin for `Request` and `Response`, over bytes
 * held in memory (the host gives a fetch's whole body, capped, at once; the
 * isolate has no streams): `text`, `json`, `arrayBuffer`, `bytes`,
 * `bodyUsed`. A body is read once: its bytes are handed over (not copied)
 * and let go of, so a payload costs its isolate its bytes and what the tool
 * makes of them, no more.
 */
import { encodeUtf8, TextDecoder, bytesOf } from "./text-codec.js";

export type BodyInit = string | ArrayBuffer | ArrayBufferView | { toString(): string } | null | undefined;

/** The bytes and the content type a body init implies. */
export function extractBody(init: BodyInit): { bytes: Uint8Array | null; type: string | null } {
  if (init === null || init === undefined) return { bytes: null, type: null };
  if (typeof init === "string") return { bytes: encodeUtf8(init), type: "text/plain;charset=UTF-8" };
  if (init instanceof ArrayBuffer || ArrayBuffer.isView(init)) return { bytes: bytesOf(init).slice(), type: null };
  const URLSearchParams = (globalThis as { URLSearchParams?: Function }).URLSearchParams;
  if (typeof URLSearchParams === "function" && init instanceof URLSearchParams) {
    return { bytes: encodeUtf8(String(init)), type: "application/x-www-form-urlencoded;charset=UTF-8" };
  }
  return { bytes: encodeUtf8(String(init)), type: "text/plain;charset=UTF-8" };
}

export class Body {
  #bytes: Uint8Array | null = null;
  #used = false;

  protected setBody(bytes: Uint8Array | null): void {
    this.#bytes = bytes;
  }
  protected bodyBytes(): Uint8Array | null {
    return this.#bytes;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  #consume(): Uint8Array {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    const bytes = this.#bytes ?? new Uint8Array(0);
    this.#bytes = null;
    return bytes;
  }

  // The body's bytes are its own (extractBody copied the init; a host body is
  // this isolate's copy) and are read once: handed over as they are.
  async bytes(): Promise<Uint8Array> {
    return this.#consume();
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#consume();
    return (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(this.#consume());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
