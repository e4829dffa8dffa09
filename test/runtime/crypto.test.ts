/**
 * @module test/runtime/crypto.test
 * SubtleCrypto beyond digest inside a real tool answers as Node 20's does
 * (./crypto.cases.ts), and a CryptoKey outlives its call in a warm isolate.
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

  it("keeps a key made in one call for the next (it lives in the isolate, not the worker)", async () => {
    await withHost(async (host) => {
      const make = `globalThis.kept = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]); return "made";`;
      const use = `return (await crypto.subtle.sign("HMAC", globalThis.kept, new Uint8Array(3))).byteLength;`;
      assert.deepEqual(await answersInTool(host, "kept_key", { make }), { make: { value: "made" } });
      assert.deepEqual(await answersInTool(host, "kept_key", { use }), { use: { value: 32 } });
    });
  });
});
