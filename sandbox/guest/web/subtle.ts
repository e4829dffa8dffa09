/**
 * @module sandbox/guest/web/subtle
 * SubtleCrypto beyond digest, and `CryptoKey`: generateKey, importKey,
 * exportKey (raw, jwk, pkcs8, spki), sign, verify, encrypt, decrypt,
 * deriveBits, deriveKey, wrapKey, unwrapKey, for what the worker's Node
 * implements (HMAC, AES-GCM/CBC/CTR/KW, PBKDF2, HKDF, ECDSA, ECDH, Ed25519,
 * X25519, RSA ...).
 * Each operation is a request of kind "webcrypto" that the worker answers
 * itself (sandbox/worker/web-crypto-bridge.ts) within the calling tool's
 * call: plain data both ways (JSON with buffers as base64, the data as the
 * request's payload, the result's bytes as the answer's). A CryptoKey keeps its key as a JWK in a WeakMap
 * only this module reads: the tool sees type, extractable, algorithm and
 * usages, and exportKey refuses a key made non-extractable, as the standard
 * says. wrapKey is one request (the worker's Node exports and wraps or
 * encrypts); unwrapKey is one request for the unwrapped bytes, then this
 * module's own importKey, so the key's extractable flag stays here.
 */
import { DOMException } from "./dom-exception.js";
import { TextDecoder, bytesOf } from "./text-codec.js";
import { base64ToBytes, bytesToBase64 } from "./bytes.js";
import { intrinsics as I } from "../intrinsics.js";

/** Sends one request to the worker with its payload; answers the answer's value, or rejects with a CapabilityError (code, message). */
export type WebCryptoExchange = (request: { kind: "webcrypto"; op: string; args: unknown[] }, payload?: ArrayBuffer) => Promise<{ value: unknown; payload?: unknown }>;

type KeyState = { jwk: unknown; type: string; extractable: boolean; algorithm: Record<string, unknown>; usages: string[] };
const KEYS = new WeakMap<object, KeyState>();
let constructing = false;

export class CryptoKey {
  constructor() {
    if (!constructing) throw new TypeError("Illegal constructor");
    constructing = false;
  }
  get type(): string {
    return stateOf(this).type;
  }
  get extractable(): boolean {
    return stateOf(this).extractable;
  }
  get algorithm(): object {
    return stateOf(this).algorithm;
  }
  get usages(): string[] {
    return stateOf(this).usages;
  }
}
I.ObjectDefineProperty(CryptoKey.prototype, Symbol.toStringTag, { __proto__: null, value: "CryptoKey", configurable: true } as PropertyDescriptor);

function stateOf(key: unknown): KeyState {
  const state = typeof key === "object" && key !== null ? KEYS.get(key) : undefined;
  if (state === undefined) throw new TypeError("The provided value is not of type 'CryptoKey'.");
  return state;
}

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (typeof value !== "object" || value === null) return value;
  const b64 = (value as { $b64?: unknown }).$b64;
  if (typeof b64 === "string") return base64ToBytes(b64);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = revive((value as Record<string, unknown>)[key]);
  return out;
}

function makeKey(described: unknown, extractable: boolean): CryptoKey {
  const d = described as { type: string; algorithm: Record<string, unknown>; usages: string[]; jwk: unknown };
  constructing = true;
  const key = new CryptoKey();
  const algorithm = revive(d.algorithm) as Record<string, unknown>;
  if (algorithm.publicExponent instanceof Uint8Array) algorithm.publicExponent = new Uint8Array(algorithm.publicExponent);
  KEYS.set(key, { jwk: d.jwk, type: d.type, extractable: d.type === "public" ? true : extractable, algorithm: I.ObjectFreeze(algorithm), usages: I.ObjectFreeze([...d.usages]) as string[] });
  return key;
}

/** An algorithm (or JWK) as plain data: buffers as base64, CryptoKeys as their parts. */
function plain(value: unknown, depth = 0): unknown {
  if (depth > 8) throw new TypeError("The algorithm is nested too deeply");
  if (typeof value !== "object" || value === null) return typeof value === "function" ? undefined : value;
  if (KEYS.has(value)) return { $key: partsOf(value as CryptoKey) };
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return { $b64: bytesToBase64(bytesOf(value)) };
  if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = plain((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

function partsOf(key: CryptoKey): { jwk: unknown; algorithm: unknown; usages: string[] } {
  const state = stateOf(key);
  return { jwk: state.jwk, algorithm: plain(state.algorithm), usages: state.usages };
}

const dataOf = (data: unknown): ArrayBuffer => bytesOf(data, "data").slice().buffer as ArrayBuffer;

function needUsage(key: CryptoKey, usage: string): void {
  if (!stateOf(key).usages.includes(usage)) throw new DOMException(`The requested operation is not valid for the provided key (it lacks the "${usage}" usage)`, "InvalidAccessError");
}

/** The "parse a JWK" step of unwrapKey: UTF-8 JSON; text that is not JSON is a DataError (as Node's), a value that is not an object a TypeError (importKey's). */
function parseJwk(bytes: ArrayBuffer): unknown {
  const text = new TextDecoder().decode(bytes);
  try {
    return I.JSONParse(text);
  } catch {
    throw new DOMException("The unwrapped key is not a JSON Web Key", "DataError");
  }
}

function usagesOf(usages: unknown): string[] {
  if (typeof usages !== "object" || usages === null || typeof (usages as Iterable<unknown>)[Symbol.iterator] !== "function") throw new TypeError("The keyUsages argument must be a sequence");
  return [...(usages as Iterable<unknown>)].map(String);
}

export function createSubtle(exchange: WebCryptoExchange) {
  async function ask(op: string, args: unknown[], payload?: ArrayBuffer): Promise<unknown> {
    try {
      const answer = await exchange({ kind: "webcrypto", op, args }, payload);
      // Bytes come as the answer's payload, an ArrayBuffer of this isolate's.
      if ((answer.value as { $payload?: unknown } | null)?.$payload === true) return answer.payload instanceof ArrayBuffer ? answer.payload : new ArrayBuffer(0);
      return answer.value;
    } catch (error) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      if (code === "TypeError") throw new TypeError(String(message));
      throw new DOMException(String(message ?? "The operation failed"), typeof code === "string" ? code : "OperationError");
    }
  }
  const buffer = (answer: unknown): ArrayBuffer => (answer instanceof ArrayBuffer ? answer : new ArrayBuffer(0));

  // Named apart from the method: the bundle is minified, and a shorthand property would take this function's minified name.
  async function importAnyKey(format: string, keyData: unknown, algorithm: unknown, extractable: boolean, keyUsages: Iterable<string>): Promise<CryptoKey> {
    const form = String(format);
    const usages = usagesOf(keyUsages);
    const name = String((typeof algorithm === "object" && algorithm !== null ? (algorithm as { name?: unknown }).name : algorithm) ?? "").toUpperCase();
    if ((name === "PBKDF2" || name === "HKDF") && extractable) throw new DOMException(`${name} keys are not extractable`, "SyntaxError");
    if (form === "jwk") {
      if (typeof keyData !== "object" || keyData === null) throw new TypeError("The keyData argument must be a JsonWebKey");
      // The worker imports every key extractable (to describe it), so `ext` is checked here, against the tool's own flag.
      const jwk = plain(keyData) as Record<string, unknown>;
      if (jwk.ext !== undefined && !jwk.ext && extractable) throw new DOMException('The JWK "ext" member is false but the key is asked to be extractable', "DataError");
      delete jwk.ext;
      return makeKey(await ask("importKey", [form, jwk, plain(algorithm), usages]), Boolean(extractable));
    }
    return makeKey(await ask("importKey", [form, null, plain(algorithm), usages], dataOf(keyData)), Boolean(extractable));
  }

  return {
    async encrypt(algorithm: unknown, key: CryptoKey, data: unknown): Promise<ArrayBuffer> {
      needUsage(key, "encrypt");
      return buffer(await ask("encrypt", [plain(algorithm), plain(key)], dataOf(data)));
    },
    async decrypt(algorithm: unknown, key: CryptoKey, data: unknown): Promise<ArrayBuffer> {
      needUsage(key, "decrypt");
      return buffer(await ask("decrypt", [plain(algorithm), plain(key)], dataOf(data)));
    },
    async sign(algorithm: unknown, key: CryptoKey, data: unknown): Promise<ArrayBuffer> {
      needUsage(key, "sign");
      return buffer(await ask("sign", [plain(algorithm), plain(key)], dataOf(data)));
    },
    async verify(algorithm: unknown, key: CryptoKey, signature: unknown, data: unknown): Promise<boolean> {
      needUsage(key, "verify");
      return (await ask("verify", [plain(algorithm), plain(key), { $b64: bytesToBase64(bytesOf(signature, "signature")) }], dataOf(data))) === true;
    },
    async generateKey(algorithm: unknown, extractable: boolean, keyUsages: Iterable<string>): Promise<CryptoKey | { publicKey: CryptoKey; privateKey: CryptoKey }> {
      const made = (await ask("generateKey", [plain(algorithm), usagesOf(keyUsages)])) as { publicKey?: unknown; privateKey?: unknown };
      if (made.publicKey !== undefined) return { publicKey: makeKey(made.publicKey, true), privateKey: makeKey(made.privateKey, Boolean(extractable)) };
      return makeKey(made, Boolean(extractable));
    },
    importKey(format: string, keyData: unknown, algorithm: unknown, extractable: boolean, keyUsages: Iterable<string>): Promise<CryptoKey> {
      return importAnyKey(format, keyData, algorithm, extractable, keyUsages);
    },
    async exportKey(format: string, key: CryptoKey): Promise<ArrayBuffer | object> {
      if (!stateOf(key).extractable) throw new DOMException("The CryptoKey is not extractable", "InvalidAccessError");
      const form = String(format);
      const exported = await ask("exportKey", [form, plain(key)]);
      return form === "jwk" ? (revive(exported) as object) : buffer(exported);
    },
    async deriveBits(algorithm: unknown, baseKey: CryptoKey, length?: number | null): Promise<ArrayBuffer> {
      needUsage(baseKey, "deriveBits");
      return buffer(await ask("deriveBits", [plain(algorithm), plain(baseKey), length ?? null]));
    },
    async deriveKey(algorithm: unknown, baseKey: CryptoKey, derivedKeyType: unknown, extractable: boolean, keyUsages: Iterable<string>): Promise<CryptoKey> {
      needUsage(baseKey, "deriveKey");
      return makeKey(await ask("deriveKey", [plain(algorithm), plain(baseKey), plain(derivedKeyType), usagesOf(keyUsages)]), Boolean(extractable));
    },
    async wrapKey(format: string, key: CryptoKey, wrappingKey: CryptoKey, wrapAlgorithm: unknown): Promise<ArrayBuffer> {
      const { extractable } = stateOf(key);
      stateOf(wrappingKey);
      return buffer(await ask("wrapKey", [String(format), plain(key), extractable, plain(wrappingKey), plain(wrapAlgorithm)]));
    },
    async unwrapKey(format: string, wrappedKey: unknown, unwrappingKey: CryptoKey, unwrapAlgorithm: unknown, unwrappedKeyAlgorithm: unknown, extractable: boolean, keyUsages: Iterable<string>): Promise<CryptoKey> {
      stateOf(unwrappingKey);
      const usages = usagesOf(keyUsages);
      const form = String(format);
      const bytes = buffer(await ask("unwrapKey", [plain(unwrapAlgorithm), plain(unwrappingKey)], dataOf(wrappedKey)));
      return importAnyKey(form, form === "jwk" ? parseJwk(bytes) : bytes, unwrappedKeyAlgorithm, extractable, usages);
    },
  };
}
