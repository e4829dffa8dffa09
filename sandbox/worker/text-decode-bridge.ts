/**
 * @module sandbox/worker/text-decode-bridge
 * The worker's side of TextDecoder's encodings beyond UTF-8
 * (sandbox/guest/web/encodings.ts): this process's own Node TextDecoder
 * (full ICU) resolves labels and decodes. Only plain data crosses: a label
 * string in, a name out; an ArrayBuffer copy of at most CHUNK_BYTES in, a
 * string or an error code out. Both run inside the guest's own call (a sync
 * callback: the call's clock runs), and neither throws: a wrong type, a huge
 * chunk or a decoder's failure is an answer the guest turns into its
 * TypeError or RangeError.
 *
 * A decoder that streams keeps Node's decoder here between chunks, keyed by
 * the guest's handle, one map per context (freed with it). At most
 * MAX_STREAMING_DECODERS are kept: past that the least recently used is
 * dropped, which can lose only a partial character of a stream its tool
 * left unfinished.
 */
import { TextDecoder as NodeTextDecoder } from "node:util";

/** Must equal sandbox/guest/web/encodings.ts. */
const CHUNK_BYTES = 1 << 20;
const DECODE_FATAL = 1;
const DECODE_IGNORE_BOM = 2;
const DECODE_ERROR = { invalidData: 1, unsupported: 2, refused: 3 } as const;
const MAX_STREAMING_DECODERS = 256;
const MAX_LABEL_CHARS = 40;

export type DecodeCallbacks = {
  encoding: (label: unknown) => string;
  decode: (handle: unknown, encoding: unknown, flags: unknown, bytes: unknown, stream: unknown) => string | number;
};

export function createDecodeCallbacks(): DecodeCallbacks {
  const streaming = new Map<number, NodeTextDecoder>();

  function decoderFor(handle: number, encoding: string, flags: number, stream: boolean): NodeTextDecoder {
    const kept = streaming.get(handle);
    if (kept !== undefined) {
      streaming.delete(handle);
      if (stream) streaming.set(handle, kept); // most recently used last
      return kept;
    }
    const made = new NodeTextDecoder(encoding, { fatal: (flags & DECODE_FATAL) !== 0, ignoreBOM: (flags & DECODE_IGNORE_BOM) !== 0 });
    if (stream) {
      if (streaming.size >= MAX_STREAMING_DECODERS) streaming.delete(streaming.keys().next().value as number);
      streaming.set(handle, made);
    }
    return made;
  }

  return {
    encoding(label) {
      if (typeof label !== "string" || label.length === 0 || label.length > MAX_LABEL_CHARS) return "";
      try {
        return new NodeTextDecoder(label).encoding;
      } catch {
        return "";
      }
    },
    decode(handle, encoding, flags, bytes, stream) {
      if (typeof handle !== "number" || !Number.isSafeInteger(handle) || typeof encoding !== "string" || encoding.length > MAX_LABEL_CHARS) return DECODE_ERROR.refused;
      if (typeof flags !== "number" || typeof stream !== "boolean") return DECODE_ERROR.refused;
      const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes instanceof Uint8Array ? bytes : undefined;
      if (view === undefined || view.byteLength > CHUNK_BYTES) return DECODE_ERROR.refused;
      let decoder: NodeTextDecoder;
      try {
        decoder = decoderFor(handle, encoding, flags, stream);
      } catch {
        return DECODE_ERROR.unsupported;
      }
      try {
        return decoder.decode(view, { stream });
      } catch {
        streaming.delete(handle);
        return DECODE_ERROR.invalidData;
      }
    },
  };
}
