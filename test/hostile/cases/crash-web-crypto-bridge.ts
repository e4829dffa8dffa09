// attempts: throw hostile input at SubtleCrypto's bridge to the worker's
// Node: an algorithm whose getter throws, one nested past any sense, a
// forged key, forged `$b64` markers, PBKDF2 with a billion iterations, a
// CryptoKey constructed by hand, and 64 key generations at once.
// expect: ok
// expect-output: {"getter":"getter","nested":"TypeError","forged":"TypeError","marker":"TypeError","iterations":"NotSupportedError","construct":"TypeError","concurrent":64}
import { defineTool } from "corral";
import { z } from "zod";

const nameOf = async (f: () => Promise<unknown>): Promise<string> => {
  try {
    await f();
    return "none";
  } catch (e) {
    return e instanceof Error && e.message === "getter" ? "getter" : String((e as Error).name);
  }
};

export default defineTool({
  name: "crash-web-crypto-bridge",
  description: "hostile case: crash-web-crypto-bridge",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 8000, memoryMb: 64 },
  async run() {
    const s = crypto.subtle;
    const enc = new TextEncoder().encode("k");
    const getter = await nameOf(() => s.importKey("raw", enc, { get name(): string { throw new Error("getter"); } }, true, ["sign"]));
    let deep: Record<string, unknown> = { name: "HMAC" };
    for (let i = 0; i < 100; i++) deep = { name: "HMAC", hash: deep };
    const nested = await nameOf(() => s.importKey("raw", enc, deep, true, ["sign"]));
    const forged = await nameOf(() => s.sign("HMAC", { type: "secret", usages: ["sign"] } as unknown as CryptoKey, enc));
    const marker = await nameOf(() => s.importKey("raw", enc, { name: "HMAC", hash: { $b64: "AAAA" } }, true, ["sign"]));
    const pw = await s.importKey("raw", enc, "PBKDF2", false, ["deriveBits"]);
    const iterations = await nameOf(() => s.deriveBits({ name: "PBKDF2", salt: enc, iterations: 1e9, hash: "SHA-256" }, pw, 256));
    const construct = await nameOf(async () => new (CryptoKey as unknown as new () => object)());
    const keys = await Promise.all(Array.from({ length: 64 }, () => s.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"])));
    return { getter, nested, forged, marker, iterations, construct, concurrent: keys.length };
  },
});
