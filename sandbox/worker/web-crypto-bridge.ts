/**
 * @module sandbox/worker/web-crypto-bridge
 * The worker's side of SubtleCrypto beyond digest
 * (sandbox/guest/web/subtle.ts): this process's own Node
 * `crypto.webcrypto.subtle` does the work. A request is a capability
 * request of kind "webcrypto" that the worker answers itself, inside the
 * calling tool's call (its clock runs while the work does); it never reaches
 * the host. Only plain data crosses: the request's JSON (the algorithm, keys
 * as JWK, buffers as base64) and the data as the request's payload
 * (an ArrayBuffer copy); the answer's JSON (keys as JWK) and its bytes as
 * the answer's payload.
 * Nothing is kept here between requests: a key lives in its tool's isolate
 * (as JWK, behind its CryptoKey) and is imported for each operation, so no
 * key outlives its isolate and none can be reached from another.
 *
 * Limits, so a tool that uses the API correctly never meets them and one
 * that abuses it cannot starve the worker: MAX_DATA_BYTES a request (the
 * worker's own memory counts against the calling tool's limit, and an
 * operation holds its data about four times over here: the copy in, the
 * output, its base64 on the way back, the copy out),
 * MAX_PBKDF2_ITERATIONS, at most MAX_RUNNING operations at once in this
 * process (the rest wait their turn) and MAX_QUEUED_BYTES waiting. Every
 * failure is an answer (`{ ok: false, code: <DOMException name or
 * "TypeError">, message }`); nothing here throws.
 */
import { webcrypto } from "node:crypto";
import type { WorkerAnswer } from "./capability-relay.js";

const subtle = webcrypto.subtle as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;

export const WEBCRYPTO_KIND = "webcrypto";
const PREFIX = `{"kind":"${WEBCRYPTO_KIND}"`;
const MAX_REQUEST_CHARS = 1 << 20;
const MAX_DATA_BYTES = 8 << 20;
const MAX_PBKDF2_ITERATIONS = 10_000_000;
const MAX_RUNNING = 4;
const MAX_QUEUED_BYTES = 256 << 20;
const OPS = new Set(["generateKey", "importKey", "exportKey", "sign", "verify", "encrypt", "decrypt", "deriveBits", "deriveKey", "wrapKey", "unwrapKey"]);

type Answer = { ok: true; value: unknown } | { ok: false; code: string; message: string };

let running = 0;
let queuedBytes = 0;
const queue: (() => void)[] = [];

/** A webcrypto request's answer (JSON text, later), or undefined when the request is not one. */
export function answerWebCrypto(requestJson: string, payload: unknown): Promise<string | WorkerAnswer> | undefined {
  if (!requestJson.startsWith(PREFIX)) return undefined;
  return perform(requestJson, payload).then(
    // Bytes go beside the answer, as a payload the isolate gets as an ArrayBuffer (never inside its JSON).
    (value) => (value instanceof Bytes ? { answerJson: PAYLOAD_ANSWER, payload: { bytesBase64: value.bytes.toString("base64") } } : JSON.stringify({ ok: true, value } satisfies Answer)),
    (error: unknown) => JSON.stringify(refusal(error)),
  );
}

/** An operation's bytes (a signature, a ciphertext, derived bits, an exported key). */
class Bytes {
  constructor(readonly bytes: Buffer) {}
}
const PAYLOAD_ANSWER = JSON.stringify({ ok: true, value: { $payload: true } });

function refusal(error: unknown): Answer {
  // Node 20 names one refusal "InvalidAccessException"; the standard says "InvalidAccessError".
  const name = error instanceof Error ? (error.name === "InvalidAccessException" ? "InvalidAccessError" : error.name) : "";
  const code = name === "TypeError" || /^[A-Z][A-Za-z]*Error$/.test(name) ? name : "OperationError";
  const message = error instanceof Error ? String(error.message).slice(0, 500) : "The operation failed";
  return { ok: false, code: code === "Error" ? "OperationError" : code, message };
}

class Refused extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

async function perform(requestJson: string, payload: unknown): Promise<unknown> {
  if (requestJson.length > MAX_REQUEST_CHARS) throw new Refused("QuotaExceededError", "the request is too large");
  const request = JSON.parse(requestJson, revive) as { op?: unknown; args?: unknown };
  if (typeof request.op !== "string" || !OPS.has(request.op) || !Array.isArray(request.args)) throw new Refused("NotSupportedError", "unknown operation");
  const data = payload === undefined ? undefined : payload instanceof ArrayBuffer ? payload : undefined;
  if (payload !== undefined && data === undefined) throw new TypeError("the data must be a BufferSource");
  const bytes = data?.byteLength ?? 0;
  if (bytes > MAX_DATA_BYTES) throw new Refused("QuotaExceededError", `corral's Web Crypto takes at most ${MAX_DATA_BYTES} bytes an operation`);
  checkIterations(request.args);
  if (queuedBytes + bytes > MAX_QUEUED_BYTES) throw new Refused("QuotaExceededError", "too much Web Crypto work is waiting in this worker");
  queuedBytes += bytes;
  await turn();
  queuedBytes -= bytes;
  try {
    return await run(request.op, request.args as unknown[], data);
  } finally {
    running--;
    queue.shift()?.();
  }
}

function turn(): Promise<void> {
  if (running < MAX_RUNNING) {
    running++;
    return Promise.resolve();
  }
  return new Promise((resolve) => queue.push(() => (running++, resolve())));
}

function checkIterations(args: unknown[]): void {
  for (const arg of args) {
    const iterations = typeof arg === "object" && arg !== null ? (arg as { iterations?: unknown }).iterations : undefined;
    if (typeof iterations === "number" && iterations > MAX_PBKDF2_ITERATIONS) throw new Refused("NotSupportedError", `PBKDF2 iterations above ${MAX_PBKDF2_ITERATIONS} are not supported`);
  }
}

/** `{ $b64 }` → bytes; `{ $key: { jwk, algorithm, usages } }` → the key's parts (imported where used). */
function revive(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const b64 = (value as { $b64?: unknown }).$b64;
  if (typeof b64 === "string") return new Uint8Array(Buffer.from(b64, "base64"));
  return value;
}

type KeyParts = { $key: { jwk: Record<string, unknown>; algorithm: Record<string, unknown>; usages: string[] } };

/** PBKDF2 and HKDF keys are raw bytes that Web Crypto never exports: they cross as `{ $raw }` (base64), imported non-extractable. */
const RAW_ONLY = new Set(["PBKDF2", "HKDF"]);

/** A key of the tool's, imported for one operation; `extractable` is false only where Node itself must refuse to export it (wrapKey). */
async function importParts(parts: unknown, extractable = true): Promise<unknown> {
  const key = (parts as Partial<KeyParts> | undefined)?.$key;
  if (key === undefined || typeof key.jwk !== "object" || key.jwk === null || typeof key.algorithm !== "object" || !Array.isArray(key.usages)) throw new TypeError("The value is not a CryptoKey");
  const raw = (key.jwk as { $raw?: unknown }).$raw;
  if (typeof raw === "string") return subtle.importKey?.("raw", Buffer.from(raw, "base64"), key.algorithm, false, key.usages);
  return subtle.importKey?.("jwk", key.jwk, key.algorithm, extractable, key.usages);
}

function algorithmName(algorithm: unknown): string {
  const name = typeof algorithm === "string" ? algorithm : (algorithm as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name.toUpperCase() : "";
}

/** Keys cross as JWK (always extractable here; the guest's CryptoKey keeps the tool's own `extractable`). */
async function describeKey(key: unknown): Promise<unknown> {
  const k = key as { type: string; algorithm: Record<string, unknown>; usages: string[] };
  const jwk = await subtle.exportKey?.("jwk", key);
  const algorithm: Record<string, unknown> = { ...k.algorithm };
  const hash = algorithm.hash as { name?: string } | undefined;
  if (hash !== undefined) algorithm.hash = { name: hash.name };
  if (algorithm.publicExponent instanceof Uint8Array) algorithm.publicExponent = { $b64: Buffer.from(algorithm.publicExponent).toString("base64") };
  return { type: k.type, algorithm, usages: k.usages, jwk };
}

const b64 = (buffer: unknown) => new Bytes(Buffer.from(buffer as ArrayBuffer));

const call = (name: string, ...rest: unknown[]) => (subtle[name] as (...a: unknown[]) => Promise<unknown>).apply(webcrypto.subtle, rest);

async function run(op: string, args: unknown[], data: ArrayBuffer | undefined): Promise<unknown> {
  switch (op) {
    case "generateKey": {
      const made = (await call("generateKey", args[0], true, args[1])) as { publicKey?: unknown; privateKey?: unknown };
      if (made.publicKey !== undefined) return { publicKey: await describeKey(made.publicKey), privateKey: await describeKey(made.privateKey) };
      return describeKey(made);
    }
    case "importKey": {
      const format = args[0];
      const keyData = format === "jwk" ? args[1] : data;
      if (RAW_ONLY.has(algorithmName(args[2]))) {
        const key = (await call("importKey", format, keyData, args[2], false, args[3])) as { algorithm: unknown; usages: string[] };
        return { type: "secret", algorithm: key.algorithm, usages: key.usages, jwk: { $raw: Buffer.from(data ?? new ArrayBuffer(0)).toString("base64") } };
      }
      return describeKey(await call("importKey", format, keyData, args[2], true, args[3]));
    }
    case "exportKey": {
      const exported = await call("exportKey", args[0], await importParts(args[1]));
      return args[0] === "jwk" ? exported : b64(exported);
    }
    case "sign":
    case "encrypt":
    case "decrypt":
      return b64(await call(op, args[0], await importParts(args[1]), data));
    case "verify":
      return call("verify", args[0], await importParts(args[1]), args[2], data);
    case "deriveBits":
      return b64(await call("deriveBits", await deriveParams(args[0]), await importParts(args[1]), args[2]));
    case "deriveKey":
      return describeKey(await call("deriveKey", await deriveParams(args[0]), await importParts(args[1]), args[2], true, args[3]));
    case "wrapKey":
      // Node normalizes, exports (refusing a key the tool made non-extractable), then checks the wrapping key's
      // name and usages and wraps or encrypts; the standard checks the wrapping key before exporting (both InvalidAccessError).
      return b64(await call("wrapKey", args[0], await importParts(args[1], args[2] === true), await importParts(args[3]), args[4]));
    case "unwrapKey":
      return b64(await unwrapBytes(args[0], await importParts(args[1]), data));
  }
  throw new Refused("NotSupportedError", "unknown operation");
}

/**
 * unwrapKey's bytes. Node's unwrapKey makes a CryptoKey, never bytes, so the
 * bytes are unwrapped as an HMAC key's (HMAC takes raw bytes of any nonzero
 * length) and read back: Node does the algorithm's checks, in its order, and
 * the decryption or AES-KW unwrap. The guest imports them in the tool's
 * format, keeping the key's extractable flag its own.
 */
async function unwrapBytes(algorithm: unknown, unwrappingKey: unknown, data: ArrayBuffer | undefined): Promise<unknown> {
  try {
    return await call("exportKey", "raw", await call("unwrapKey", "raw", data, unwrappingKey, algorithm, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]));
  } catch (error) {
    // The HMAC import's only refusal: nothing was wrapped (every format's import refuses empty data too).
    if (error instanceof Error && error.name === "DataError") throw new Refused("DataError", "the unwrapped key data is empty");
    throw error;
  }
}

/** The algorithms whose `public` member is the peer's CryptoKey. */
const PEER_KEYED = new Set(["ECDH", "X25519", "X448"]);

/** ECDH's `public` is a CryptoKey of the tool's: imported like the base key; anything else there is a TypeError (importParts), as the algorithm's dictionary says. */
async function deriveParams(algorithm: unknown): Promise<unknown> {
  if (typeof algorithm !== "object" || algorithm === null || !PEER_KEYED.has(algorithmName(algorithm))) return algorithm;
  const peer = (algorithm as { public?: unknown }).public;
  // Missing, Node's own normalization names the member.
  if (peer === undefined) return algorithm;
  return { ...algorithm, public: await importParts(peer) };
}
