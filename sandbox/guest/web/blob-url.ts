/**
 * @module sandbox/guest/web/blob-url
 * Blob URLs (File API): `URL.createObjectURL(blob)` answers
 * `blob:null/<uuid>` (a tool's isolate has an opaque origin, which
 * serializes as "null") and keeps the Blob in this isolate's own store until
 * `URL.revokeObjectURL`; `fetch` of such a URL is answered here from the
 * store (Fetch's "scheme fetch" for blob:), never by the host: it reads only
 * what the tool itself made, so it needs no effect. The store lives as long
 * as the isolate, as a document's does.
 */
import { blobBytes } from "./blob.js";
import { responseFromHost } from "./response.js";

// The Blob's bytes (shared, never written) and type, by URL.
const store = new Map<string, { bytes: Uint8Array; type: string }>();

function uuid(): string {
  return (globalThis as unknown as { crypto: { randomUUID(): string } }).crypto.randomUUID();
}

export function createObjectURL(obj: unknown): string {
  if (arguments.length === 0) throw new TypeError("Failed to execute 'createObjectURL' on 'URL': 1 argument required, but only 0 present.");
  const bytes = blobBytes(obj);
  if (bytes === undefined) throw new TypeError("Failed to execute 'createObjectURL' on 'URL': parameter 1 is not of type 'Blob'.");
  const url = `blob:null/${uuid()}`;
  store.set(url, { bytes, type: (obj as { type: string }).type });
  return url;
}

export function revokeObjectURL(url: unknown): void {
  if (arguments.length === 0) throw new TypeError("Failed to execute 'revokeObjectURL' on 'URL': 1 argument required, but only 0 present.");
  store.delete(String(url));
}

/** Fetch's answer for a blob: URL: the Blob a GET names, or a network error (a TypeError). */
export function fetchBlobUrl(url: string, method: string): unknown {
  // The fragment is not part of the Blob's URL; a query or a path after it is.
  if (method !== "GET") throw new TypeError(`fetch failed: a blob: URL is fetched with GET only, not ${method}`);
  const key = url.split("#")[0] ?? url;
  const blob = store.get(key);
  if (blob === undefined) throw new TypeError(`fetch failed: no Blob is stored at ${key} (revoked, or never made by URL.createObjectURL in this tool)`);
  const headers: [string, string][] = [["content-length", String(blob.bytes.byteLength)]];
  if (blob.type !== "") headers.push(["content-type", blob.type]);
  return responseFromHost({ status: 200, statusText: "OK", headers, body: blob.bytes.slice(), url, redirected: false });
}
