/**
 * @module test/runtime/crypto.test
 * SubtleCrypto beyond digest inside a real tool answers as Node 20's does
 * (./crypto.cases.ts), works at its size limit under the default memory
 * limit, and a CryptoKey outlives its call in a warm isolate.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost } from "../helpers/host.js";
import { answersInNode, answersInTool, differences } from "./run-cases.js";
import { CRYPTO_CASES } from "./crypto.cases.js";

describe("runtime: SubtleCrypto", { timeout: 120_000 }, () => {
  it("answers every case as Node does", async () => {
    const expected = await answersInNode(CRYPTO_CASES);
    await withHost(async (host) => {
      const actual = await answersInTool(host, "runtime_crypto", CRYPTO_CASES);
      assert.deepEqual(differences(actual, expected), []);
    });
  });

  it("encrypts and decrypts 8 MiB under the default 64 MB limit without a strike; one byte more is refused", async () => {
    await withHost(async (host) => {
      // AES-GCM's tag adds 16 bytes: a plaintext of 8 MiB - 16 makes a ciphertext of exactly the limit.
      const body = (size: number) => `const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 128 }, false, ["encrypt", "decrypt"]); const iv = new Uint8Array(12); try { const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new Uint8Array(${size}).fill(1)); const pt = await crypto.subtle.decrypt({ name: "AES-GCM", iv }, key, ct); return [ct.byteLength, pt.byteLength]; } catch (e) { return e.name; }`;
      const answers = await answersInTool(host, "big_crypto", { fits: body((8 << 20) - 16), over: body((8 << 20) + 1) }, { timeoutMs: 20_000, memoryMb: 64 });
      assert.deepEqual(answers, { fits: { value: [8 << 20, (8 << 20) - 16] }, over: { value: "QuotaExceededError" } });
      assert.equal((await host.auditSource("agent:big_crypto"))?.totals.strikes ?? 0, 0);
    });
  });

  it("keeps a key made in one call for the next (it lives in the isolate, not the worker)", async () => {
    await withHost(async (host) => {
      const make = `globalThis.kept = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]); return "made";`;
      const use = `return (await crypto.subtle.sign("HMAC", globalThis.kept, new Uint8Array(3))).byteLength;`;
      assert.deepEqual(await answersInTool(host, "kept_key", { make }), { make: { value: "made" } });
      assert.deepEqual(await answersInTool(host, "kept_key", { use }), { use: { value: 32 } });
    });
  });
});
