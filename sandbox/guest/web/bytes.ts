/**
 * @module sandbox/guest/web/bytes
 * Bytes ⇄ base64 for the capability relay (bodies and files travel as
 * base64 inside JSON), in chunks so a large body does not build a huge
 * argument list.
 */
import { atob, btoa } from "./base64.js";

const CHUNK = 0x8000;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
