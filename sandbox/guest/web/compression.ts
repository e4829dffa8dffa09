/**
 * @module sandbox/guest/web/compression
 * `CompressionStream` and `DecompressionStream` after the Compression
 * standard ("gzip", "deflate", "deflate-raw"): each a TransformStream's pair
 * whose chunks the worker's zlib compresses or decompresses, one request a
 * chunk, in order, within the calling tool's call
 * (sandbox/worker/compression-bridge.ts). A chunk that is no BufferSource,
 * data that does not decompress, or data after a stream's end is a
 * TypeError that errors the stream, as the standard says. A decompressor's
 * input crosses 8 KiB at a time, so one answer's output stays under ~8.3 MiB
 * (deflate's ratio is at most ~1032:1) and under the worker's cap; a compressor's crosses 1 MiB at a time.
 */
import { bytesOf } from "./text-codec.js";
import { webStreams } from "./streams.js";
import { intrinsics as I } from "../intrinsics.js";

/** Sends one request to the worker with its payload; answers the answer's value, or rejects (code, message). */
export type WorkerExchange = (request: { kind: string } & Record<string, unknown>, payload?: ArrayBuffer) => Promise<{ value: unknown; payload?: unknown }>;

const FORMATS = new Set(["gzip", "deflate", "deflate-raw"]);
let exchange: WorkerExchange | undefined;
let nextHandle = 1;

/** Set once by installWebGlobals, before any tool code runs. */
export function setCompressionExchange(value: WorkerExchange): void {
  exchange ??= value;
}

type Pair = { readable: object; writable: object };
type Controller = { enqueue(chunk: Uint8Array): void };

function makePair(format: unknown, mode: "compress" | "decompress"): Pair {
  const name = String(format);
  if (!FORMATS.has(name)) throw new TypeError(`Unsupported compression format: '${name}'`);
  const handle = nextHandle++;
  const pieceBytes = mode === "decompress" ? 2 * 1024 : 256 * 1024;
  const send = async (bytes: Uint8Array, end: boolean, controller: Controller) => {
    if (exchange === undefined) throw new TypeError("compression is not available");
    let answer: { payload?: unknown };
    try {
      answer = await exchange({ kind: "compression", handle, format: name, mode, end }, bytes.slice().buffer as ArrayBuffer);
    } catch (error) {
      throw new TypeError(String((error as { message?: unknown })?.message ?? "compression failed"));
    }
    // The output comes as the answer's payload, an ArrayBuffer of this isolate's.
    if (answer.payload instanceof ArrayBuffer && answer.payload.byteLength > 0) controller.enqueue(new Uint8Array(answer.payload));
  };
  const { TransformStream } = webStreams();
  return new (TransformStream as unknown as new (transformer: object) => Pair)({
    async transform(chunk: unknown, controller: Controller) {
      const bytes = bytesOf(chunk, "chunk");
      // WebIDL's [AllowShared] is absent from the chunk's BufferSource: shared memory is a TypeError.
      if (typeof SharedArrayBuffer === "function" && bytes.buffer instanceof SharedArrayBuffer) throw new TypeError("The chunk is backed by a SharedArrayBuffer, which compression streams do not take");
      for (let offset = 0; offset < bytes.byteLength; offset += pieceBytes) await send(bytes.subarray(offset, offset + pieceBytes), false, controller);
    },
    async flush(controller: Controller) {
      await send(new Uint8Array(0), true, controller);
    },
  });
}

export class CompressionStream {
  readonly #pair: Pair;
  constructor(format: "gzip" | "deflate" | "deflate-raw") {
    if (arguments.length === 0) throw new TypeError("Failed to construct 'CompressionStream': 1 argument required, but only 0 present.");
    this.#pair = makePair(format, "compress");
  }
  get readable(): object {
    return this.#pair.readable;
  }
  get writable(): object {
    return this.#pair.writable;
  }
}

export class DecompressionStream {
  readonly #pair: Pair;
  constructor(format: "gzip" | "deflate" | "deflate-raw") {
    if (arguments.length === 0) throw new TypeError("Failed to construct 'DecompressionStream': 1 argument required, but only 0 present.");
    this.#pair = makePair(format, "decompress");
  }
  get readable(): object {
    return this.#pair.readable;
  }
  get writable(): object {
    return this.#pair.writable;
  }
}

for (const [target, name] of [[CompressionStream, "CompressionStream"], [DecompressionStream, "DecompressionStream"]] as const) {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}
