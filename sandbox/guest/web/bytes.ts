/**
 * @module sandbox/guest/web/bytes
 * Bytes ⇄ base64 for ctx.fs's `base64` encoding, read as Node's Buffer
 * reads it (see base64.ts: one pass each way, chunked text).
 */
import { decodeBase64, encodeBase64 } from "./base64.js";

export const bytesToBase64 = (bytes: Uint8Array): string => encodeBase64(bytes);

export const base64ToBytes = (text: string): Uint8Array => decodeBase64(text, true);
