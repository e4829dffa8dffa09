/**
 * @module sandbox/guest/web/crypto
 * `crypto.getRandomValues`, `crypto.randomUUID` and `crypto.subtle.digest`
 * (SHA-1/256/384/512) here; the rest of SubtleCrypto in ./subtle.ts. Random bytes come from the worker's CSPRNG
 * (node:crypto), lent as one callback and drawn here in blocks: the isolate
 * has no entropy of its own and `Math.random` is not a CSPRNG. Digests use
 * @noble/hashes (audited, pure JS).
 */
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { DOMException } from "./dom-exception.js";
import { bytesOf } from "./text-codec.js";
import { createSubtle, type WebCryptoExchange } from "./subtle.js";

/** Returns `count` random bytes as a binary string (one char per byte). */
export type RandomSource = (count: number) => string;

const BLOCK_BYTES = 1024;
const MAX_RANDOM_BYTES = 65536;
const DIGESTS: Record<string, (data: Uint8Array) => Uint8Array> = {
  "SHA-1": sha1,
  "SHA-256": sha256,
  "SHA-384": sha384,
  "SHA-512": sha512,
};

function createRandomPool(source: RandomSource): (into: Uint8Array) => void {
  let block = "";
  let used = 0;
  return (into) => {
    for (let i = 0; i < into.length; i++) {
      if (used >= block.length) {
        block = source(Math.max(BLOCK_BYTES, Math.min(into.length - i, MAX_RANDOM_BYTES)));
        used = 0;
        if (typeof block !== "string" || block.length === 0) throw new Error("corral runtime: the worker gave no random bytes");
      }
      into[i] = block.charCodeAt(used++);
    }
  };
}

const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];

function algorithmName(algorithm: unknown): string {
  const name = typeof algorithm === "object" && algorithm !== null ? (algorithm as { name?: unknown }).name : algorithm;
  return String(name).toUpperCase();
}

/** The interface objects (WebIDL): no one constructs them; the one `crypto` and its `subtle` carry their methods on the prototypes. */
export class Crypto {
  constructor() {
    throw new TypeError("Illegal constructor");
  }
}
export class SubtleCrypto {
  constructor() {
    throw new TypeError("Illegal constructor");
  }
}
for (const [target, name] of [[Crypto, "Crypto"], [SubtleCrypto, "SubtleCrypto"]] as const) {
  Object.defineProperty(target.prototype, Symbol.toStringTag, { value: name, configurable: true });
}

/** An instance of `Type` whose prototype gets `members` (operations and accessors, as written). */
function instanceOf<T>(Type: { prototype: object }, members: object): T {
  for (const key of Object.keys(members)) {
    const descriptor = Object.getOwnPropertyDescriptor(members, key) as PropertyDescriptor;
    Object.defineProperty(Type.prototype, key, { ...descriptor, enumerable: true, configurable: true });
  }
  return Object.create(Type.prototype) as T;
}

export function createCrypto(source: RandomSource, exchange: WebCryptoExchange) {
  const fill = createRandomPool(source);
  const subtle = instanceOf<object>(SubtleCrypto, {
    ...createSubtle(exchange),
    async digest(algorithm: unknown, data: unknown): Promise<ArrayBuffer> {
      const hash = DIGESTS[algorithmName(algorithm)];
      if (hash === undefined) throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
      const bytes = bytesOf(data, "data");
      const digest = hash(bytes);
      return digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength) as ArrayBuffer;
    },
  });
  return instanceOf<{ getRandomValues<T>(array: T): T; randomUUID(): string; subtle: object }>(Crypto, {
    getRandomValues<T extends ArrayBufferView | null>(array: T): T {
      if (!INTEGER_ARRAYS.some((Type) => array instanceof Type)) {
        throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
      }
      const view = array as unknown as ArrayBufferView;
      if (view.byteLength > MAX_RANDOM_BYTES) {
        throw new DOMException(
          `The ArrayBufferView's byte length (${view.byteLength}) exceeds the number of bytes of entropy available via this API (${MAX_RANDOM_BYTES})`,
          "QuotaExceededError",
        );
      }
      fill(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
      return array;
    },
    randomUUID(): string {
      const bytes = new Uint8Array(16);
      fill(bytes);
      bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
      bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
      let hex = "";
      for (let i = 0; i < 16; i++) {
        hex += ((bytes[i] as number) + 0x100).toString(16).slice(1);
        if (i === 3 || i === 5 || i === 7 || i === 9) hex += "-";
      }
      return hex;
    },
    get subtle(): object {
      return subtle;
    },
  });
}
