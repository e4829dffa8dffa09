/**
 * @module sandbox/guest/web/text-streams
 * `TextEncoderStream` and `TextDecoderStream` after the Encoding standard:
 * each is a TransformStream's pair (`readable`, `writable`) around one
 * encoder or decoder. The encoder keeps a lone high surrogate that ends a
 * chunk for the next one (U+FFFD if the stream ends on it); the decoder
 * decodes with `{ stream: true }` and flushes at the end (so a fatal error
 * errors the stream with a TypeError).
 */
import { bytesOf, encodeUtf8, TextDecoder } from "./text-codec.js";
import { webStreams } from "./streams.js";
import { intrinsics as I } from "../intrinsics.js";

type Pair = { readable: object; writable: object };
type Controller = { enqueue(chunk: unknown): void };

function transform(start: { transform(chunk: unknown, controller: Controller): void; flush(controller: Controller): void }): Pair {
  const { TransformStream } = webStreams();
  return new (TransformStream as unknown as new (transformer: object) => Pair)(start);
}

export class TextEncoderStream {
  readonly #pair: Pair;
  constructor() {
    let pending = "";
    this.#pair = transform({
      transform(chunk, controller) {
        let text = pending + String(chunk);
        pending = "";
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          pending = text.slice(-1);
          text = text.slice(0, -1);
        }
        if (text.length > 0) controller.enqueue(encodeUtf8(text));
      },
      flush(controller) {
        if (pending !== "") controller.enqueue(new Uint8Array([0xef, 0xbf, 0xbd]));
      },
    });
  }
  get encoding(): string {
    return "utf-8";
  }
  get readable(): object {
    return this.#pair.readable;
  }
  get writable(): object {
    return this.#pair.writable;
  }
}

export class TextDecoderStream {
  readonly #decoder: TextDecoder;
  readonly #pair: Pair;
  constructor(label: unknown = "utf-8", options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const decoder = new TextDecoder(label, options);
    this.#decoder = decoder;
    this.#pair = transform({
      transform(chunk, controller) {
        const text = decoder.decode(bytesOf(chunk, "chunk"), { stream: true });
        if (text !== "") controller.enqueue(text);
      },
      flush(controller) {
        const text = decoder.decode();
        if (text !== "") controller.enqueue(text);
      },
    });
  }
  get encoding(): string {
    return this.#decoder.encoding;
  }
  get fatal(): boolean {
    return this.#decoder.fatal;
  }
  get ignoreBOM(): boolean {
    return this.#decoder.ignoreBOM;
  }
  get readable(): object {
    return this.#pair.readable;
  }
  get writable(): object {
    return this.#pair.writable;
  }
}

for (const [target, name] of [[TextEncoderStream, "TextEncoderStream"], [TextDecoderStream, "TextDecoderStream"]] as const) {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}
