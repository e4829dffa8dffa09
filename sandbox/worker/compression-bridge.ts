/**
 * @module sandbox/worker/compression-bridge
 * The worker's side of CompressionStream and DecompressionStream
 * (sandbox/guest/web/compression.ts): this process's zlib, chunk by chunk.
 * A chunk is a capability request of kind "compression" that the worker
 * answers itself, inside the calling tool's call (its clock runs); it never
 * reaches the host. Plain data only: the request's JSON (stream handle,
 * format, direction, whether it ends) and the chunk as its payload (an
 * ArrayBuffer copy); the output as the answer's payload, copied into the
 * isolate as an ArrayBuffer the way a fetch's body is.
 *
 * Each stream's zlib lives here between chunks, keyed by call and handle,
 * and is closed when its stream ends, fails, or its call ends
 * (endCompressionCall), so none outlives its call. Limits: MAX_STREAMS open
 * per call, MAX_CHUNK_BYTES in, MAX_OUTPUT_BYTES out per chunk (the guest
 * sends a decompressor at most 2 KiB at a time, and deflate's ratio, at
 * most ~1032:1, keeps that near 2 MiB, so correct data never meets it).
 * Small pieces also keep what the worker holds for a stream at any moment
 * small: the worker's own memory counts against the calling tool's limit. A failure is an answer
 * (`{ ok: false, code: "TypeError", message }`), never a throw.
 */
import * as zlib from "node:zlib";
import type { WorkerAnswer } from "./capability-relay.js";

const PREFIX = '{"kind":"compression"';
const MAX_STREAMS = 64;
const MAX_CHUNK_BYTES = 256 << 10;
const MAX_OUTPUT_BYTES = 8 << 20;
const MAKERS: Record<string, Record<string, () => zlib.Gzip | zlib.Gunzip | zlib.Deflate | zlib.Inflate | zlib.DeflateRaw | zlib.InflateRaw>> = {
  compress: { gzip: zlib.createGzip, deflate: zlib.createDeflate, "deflate-raw": zlib.createDeflateRaw },
  decompress: { gzip: zlib.createGunzip, deflate: zlib.createInflate, "deflate-raw": zlib.createInflateRaw },
};

// `given`: input bytes written; `ended`: zlib reached the end of the compressed data (it ends itself there).
type Open = { engine: zlib.Gzip; output: Buffer[]; bytes: number; failed: Error | undefined; given: number; ended: boolean };
const streams = new Map<string, Map<number, Open>>();

/** A compression request's answer (JSON text, later), or undefined when the request is not one. */
export function answerCompression(callId: string, requestJson: string, payload: unknown): Promise<WorkerAnswer> | undefined {
  if (!requestJson.startsWith(PREFIX)) return undefined;
  return perform(callId, requestJson, payload).then(
    (output): WorkerAnswer => ({ answerJson: '{"ok":true,"value":null}', payload: { bytesBase64: output.toString("base64") } }),
    (error: unknown): WorkerAnswer => ({ answerJson: JSON.stringify({ ok: false, code: "TypeError", message: error instanceof Error ? error.message.slice(0, 300) : "compression failed" }) }),
  );
}

/** The call ended: its streams' zlib engines are closed. */
export function endCompressionCall(callId: string): void {
  const open = streams.get(callId);
  if (open === undefined) return;
  streams.delete(callId);
  for (const stream of open.values()) stream.engine.destroy();
}

async function perform(callId: string, requestJson: string, payload: unknown): Promise<Buffer> {
  if (requestJson.length > 300) throw new Error("the request is malformed");
  const { handle, format, mode, end } = JSON.parse(requestJson) as { handle?: unknown; format?: unknown; mode?: unknown; end?: unknown };
  if (typeof handle !== "number" || !Number.isSafeInteger(handle) || typeof end !== "boolean") throw new Error("the request is malformed");
  const chunk = payload === undefined ? Buffer.alloc(0) : payload instanceof ArrayBuffer ? Buffer.from(payload) : undefined;
  if (chunk === undefined || chunk.byteLength > MAX_CHUNK_BYTES) throw new Error("the chunk must be a BufferSource of at most 256 KiB");
  const open = streams.get(callId) ?? new Map<number, Open>();
  streams.set(callId, open);
  let stream = open.get(handle);
  if (stream === undefined) {
    const make = typeof mode === "string" && typeof format === "string" ? MAKERS[mode]?.[format] : undefined;
    if (make === undefined) throw new Error("unsupported compression format");
    if (open.size >= MAX_STREAMS) throw new Error(`at most ${MAX_STREAMS} compression streams may be open in one call`);
    stream = { engine: make() as zlib.Gzip, output: [], bytes: 0, failed: undefined, given: 0, ended: false };
    const made = stream;
    made.engine.on("end", () => (made.ended = true));
    made.engine.on("data", (data: Buffer) => {
      made.bytes += data.byteLength;
      if (made.bytes > MAX_OUTPUT_BYTES) made.engine.destroy(new Error("a chunk's output is too large"));
      else made.output.push(data);
    });
    made.engine.on("error", (error: Error) => (made.failed ??= error));
    open.set(handle, made);
  }
  try {
    stream.given += chunk.byteLength;
    await step(stream, chunk, end);
    // Compression Streams: input after the end of the compressed data is an error (zlib would drop it silently).
    if (stream.ended && stream.engine.bytesWritten < stream.given) stream.failed ??= new Error("junk after the end of the compressed data");
    if (stream.failed !== undefined) throw stream.failed;
    const output = Buffer.concat(stream.output);
    stream.output = [];
    stream.bytes = 0;
    return output;
  } finally {
    if (end || stream.failed !== undefined) {
      open.delete(handle);
      stream.engine.destroy();
    }
  }
}

/** Writes the chunk (and ends the stream), resolving once its output has been pushed. */
function step(stream: Open, chunk: Buffer, end: boolean): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve();
    stream.engine.once("error", done);
    if (stream.ended) {
      // zlib ended itself at the end of the data: nothing more will be pushed, nor "end" emitted again.
      stream.engine.off("error", done);
      resolve();
    } else if (end) {
      stream.engine.once("end", done);
      stream.engine.end(chunk);
      stream.engine.resume();
    } else if (chunk.byteLength === 0) resolve();
    // Output comes as zlib makes it: what this chunk's write has not pushed yet comes with the next answer.
    else stream.engine.write(chunk, done);
  });
}
