/**
 * @module sandbox/guest/web/streams
 * The Streams standard's classes, loaded on first use (of a class, of a
 * body's `stream()`/`body`, of TextEncoderStream ...): the worker lends one
 * callback that runs web-streams.bundle.js (./streams-bundle.ts) in this
 * context and leaves its exports under `__corral_streams_module`, which this
 * takes off at once and keeps, so the runtime's own uses (bodies, Blob)
 * never read a global a tool may have replaced.
 */
export type StreamsLoader = () => void;

type Constructor = new (...args: never[]) => object;

export type StreamsModule = {
  ReadableStream: Constructor & { from?: unknown };
  ReadableStreamDefaultReader: Constructor;
  ReadableStreamBYOBReader: Constructor;
  ReadableStreamBYOBRequest: Constructor;
  ReadableStreamDefaultController: Constructor;
  ReadableByteStreamController: Constructor;
  WritableStream: Constructor;
  WritableStreamDefaultWriter: Constructor;
  WritableStreamDefaultController: Constructor;
  TransformStream: Constructor;
  TransformStreamDefaultController: Constructor;
  ByteLengthQueuingStrategy: Constructor;
  CountQueuingStrategy: Constructor;
};

export const STREAM_GLOBALS = [
  "ReadableStream",
  "ReadableStreamDefaultReader",
  "ReadableStreamBYOBReader",
  "ReadableStreamBYOBRequest",
  "ReadableStreamDefaultController",
  "ReadableByteStreamController",
  "WritableStream",
  "WritableStreamDefaultWriter",
  "WritableStreamDefaultController",
  "TransformStream",
  "TransformStreamDefaultController",
  "ByteLengthQueuingStrategy",
  "CountQueuingStrategy",
] as const;

const SLOT = "__corral_streams_module";
let loader: StreamsLoader | undefined;
let loaded: StreamsModule | undefined;

/** Set once by installWebGlobals, before any tool code runs. */
export function setStreamsLoader(load: StreamsLoader): void {
  loader ??= load;
}

/** The stream classes, loading them on first use. */
export function webStreams(): StreamsModule {
  if (loaded !== undefined) return loaded;
  if (loader === undefined) throw new Error("corral runtime: no streams loader");
  const global = globalThis as Record<string, unknown>;
  loader();
  const module = global[SLOT] as StreamsModule | undefined;
  delete global[SLOT];
  if (typeof module !== "object" || module === null || typeof module.ReadableStream !== "function") throw new Error("corral runtime: the worker did not load streams");
  loaded = {} as StreamsModule;
  for (const name of STREAM_GLOBALS) (loaded as Record<string, unknown>)[name] = module[name];
  return loaded;
}

/** A byte ReadableStream of `bytes` (a copy), in chunks of at most 64 KiB. */
export function bytesStream(bytes: Uint8Array): unknown {
  const { ReadableStream } = webStreams();
  let offset = 0;
  return new (ReadableStream as unknown as new (source: object) => unknown)({
    type: "bytes",
    pull(controller: { enqueue(chunk: Uint8Array): void; close(): void }) {
      if (offset >= bytes.byteLength) return controller.close();
      const end = Math.min(bytes.byteLength, offset + 65536);
      controller.enqueue(bytes.slice(offset, end));
      offset = end;
      if (offset >= bytes.byteLength) controller.close();
    },
  });
}
