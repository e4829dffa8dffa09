/**
 * @module sandbox/guest/web/bytes
 * Bytes ⇄ base64 for ctx.fs's `base64` encoding, read as Node's Buffer
 * reads it (see base64.ts: one pass each way, chunked text), and the
 * joining of byte chunks that Blob, FormData and bodies share.
 */
import { decodeBase64, encodeBase64 } from "./base64.js";

export const bytesToBase64 = (bytes: Uint8Array): string => encodeBase64(bytes);

export const base64ToBytes = (text: string): Uint8Array => decodeBase64(text, true);

/** The parts one after another, in one allocation of their total size (one part is returned as it is). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
