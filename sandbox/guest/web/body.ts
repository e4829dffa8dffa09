/**
 * @module sandbox/guest/web/body
 * The Fetch standard's body mixin for `Request` and `Response`, over bytes
 * held in memory (the host gives a fetch's whole body, capped, at once; the
 * isolate has no streams): `text`, `json`, `arrayBuffer`, `bytes`,
 * `bodyUsed`. A body is read once.
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
    return this.#bytes ?? new Uint8Array(0);
  }

  async bytes(): Promise<Uint8Array> {
    return this.#consume().slice();
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#consume().slice().buffer as ArrayBuffer;
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(this.#consume());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
