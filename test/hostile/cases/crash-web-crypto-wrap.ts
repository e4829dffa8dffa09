// attempts: throw hostile input at SubtleCrypto's wrapKey and unwrapKey
// (the bridge's newest operations): wrapped data one byte over the limit,
// a wrapped JWK nested 100 000 deep, 8 MiB unwrapped into a raw AES key,
// garbage for AES-KW, a forged unwrapping key, a forged key marker as
// ECDH's peer, a non-extractable key to wrap, and 32 wraps at once.
// expect: ok
// expect-output: {"huge":"QuotaExceededError","deep":"TypeError","big":"DataError","garbage":"OperationError","forged":"TypeError","marker":"TypeError","sealed":"InvalidAccessError","concurrent":32}
import { defineTool } from "corral";
import { z } from "zod";

const nameOf = async (f: () => Promise<unknown>): Promise<string> => {
  try {
    await f();
    return "none";
  } catch (e) {
    return String((e as Error).name);
  }
};

export default defineTool({
  name: "crash-web-crypto-wrap",
  description: "hostile case: crash-web-crypto-wrap",
  limits: { timeoutMs: 8000, memoryMb: 64 },
  input: z.object({}),
  effects: [],
  async run() {
    const { subtle: s } = crypto;
    const iv = new Uint8Array(12);
    const gcm = { name: "AES-GCM", iv };
    const key = await s.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["wrapKey", "unwrapKey", "encrypt"]);
    const kw = await s.importKey("raw", new Uint8Array(16), "AES-KW", false, ["wrapKey", "unwrapKey"]);
    const huge = await nameOf(() => s.unwrapKey("raw", new Uint8Array((8 << 20) + 1), key, gcm, "AES-GCM", true, ["encrypt"]));
    const nesting = "[".repeat(100_000) + "]".repeat(100_000);
    const deepWrapped = await s.encrypt(gcm, key, new TextEncoder().encode(nesting));
    const deep = await nameOf(() => s.unwrapKey("jwk", deepWrapped, key, gcm, "AES-GCM", true, ["encrypt"]));
    const bigWrapped = await s.encrypt(gcm, key, new Uint8Array((8 << 20) - 16));
    const big = await nameOf(() => s.unwrapKey("raw", bigWrapped, key, gcm, "AES-GCM", true, ["encrypt"]));
    const garbage = await nameOf(() => s.unwrapKey("raw", new Uint8Array(4096).fill(7), kw, "AES-KW", "AES-GCM", true, ["encrypt"]));
    const forged = await nameOf(() => s.unwrapKey("raw", new Uint8Array(24), { type: "secret", usages: ["unwrapKey"] } as unknown as CryptoKey, "AES-KW", "AES-GCM", true, ["encrypt"]));
    const pair = (await s.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"])) as CryptoKeyPair;
    const marker = await nameOf(() => s.deriveBits({ name: "ECDH", public: { $key: { jwk: 1, algorithm: {}, usages: [] } } } as unknown as EcdhKeyDeriveParams, pair.privateKey, 256));
    const sealed = await nameOf(() => s.wrapKey("raw", key, kw, "AES-KW"));
    const toWrap = await s.importKey("raw", new Uint8Array(32).fill(1), "AES-CBC", true, ["encrypt"]);
    const wraps = await Promise.all(Array.from({ length: 32 }, () => s.wrapKey("raw", toWrap, kw, "AES-KW")));
    return { huge, deep, big, garbage, forged, marker, sealed, concurrent: wraps.length };
  },
});
