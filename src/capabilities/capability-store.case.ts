/**
 * @module src/capabilities/capability-store.case
 * One suite for every CapabilityStore (memory, SQLite; a server store can
 * run it too): state within its quota, the record of uses, survival across
 * a reopen where the store keeps anything; the quota under concurrent
 * writes (capability-store-races.case.ts), from two stores on one database
 * where `reopen` opens one while the first is still open.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CapabilityStore, CapabilityUse } from "./capability-store.js";
import { stateRaceCases } from "./capability-store-races.case.js";

const LIMITS = { quotaBytes: 100, maxKeys: 3 };

const use = (extra: Partial<CapabilityUse> = {}): CapabilityUse => ({
  source: "agent:a",
  tool: "t",
  callId: "c1",
  effect: "net_read",
  operation: "fetch",
  target: "http://127.0.0.1:1/x",
  bytes: 10,
  outcome: "ok",
  at: 1000,
  ...extra,
});

export function capabilityStoreSuite(name: string, open: () => CapabilityStore, reopen?: () => CapabilityStore): void {
  describe(`${name} capability store`, { timeout: 30_000 }, () => {
    it("keeps state per source, lists by prefix, deletes", async () => {
      const store = open();
      try {
        assert.deepEqual(await store.stateSet("agent:a", "k/1", '{"v":1}', LIMITS), { ok: true });
        assert.deepEqual(await store.stateSet("agent:a", "k/2", "2", LIMITS), { ok: true });
        assert.deepEqual(await store.stateSet("agent:a", "z", "true", LIMITS), { ok: true });
        assert.deepEqual(await store.stateSet("agent:b", "k/1", '"other"', LIMITS), { ok: true });
        assert.equal(await store.stateGet("agent:a", "k/1"), '{"v":1}');
        assert.equal(await store.stateGet("agent:b", "k/1"), '"other"');
        assert.equal(await store.stateGet("agent:a", "missing"), undefined);
        assert.deepEqual(await store.stateList("agent:a", "k/", 10), ["k/1", "k/2"]);
        assert.deepEqual(await store.stateList("agent:a", "", 2), ["k/1", "k/2"]);
        assert.deepEqual(await store.stateList("agent:a", "%", 10), []);
        assert.equal(await store.stateDelete("agent:a", "k/2"), true);
        assert.equal(await store.stateDelete("agent:a", "k/2"), false);
        assert.deepEqual(await store.stateUsage("agent:a"), { keys: 2, bytes: "k/1".length + 7 + 1 + 4 });
      } finally {
        await store.close();
      }
    });

    it("refuses a write past the quota of bytes or keys and keeps what was there", async () => {
      const store = open();
      try {
        assert.deepEqual(await store.stateSet("agent:q", "a", "1", LIMITS), { ok: true });
        const big = await store.stateSet("agent:q", "b", JSON.stringify("x".repeat(200)), LIMITS);
        assert.equal(big.ok, false);
        assert.equal(await store.stateGet("agent:q", "b"), undefined);
        // Replacing a key counts its old size out.
        assert.deepEqual(await store.stateSet("agent:q", "a", JSON.stringify("y".repeat(90)), LIMITS), { ok: true });
        await store.stateSet("agent:q", "a", "1", LIMITS);
        await store.stateSet("agent:q", "b", "1", LIMITS);
        await store.stateSet("agent:q", "c", "1", LIMITS);
        const fourth = await store.stateSet("agent:q", "d", "1", LIMITS);
        assert.deepEqual(fourth, { ok: false, usage: { keys: 4, bytes: 8 } });
      } finally {
        await store.close();
      }
    });

    it("counts uses per tool, effect and outcome and keeps the latest with targets", async () => {
      const store = open();
      try {
        await store.recordUse(use());
        await store.recordUse(use({ at: 2000, bytes: 5, target: "http://127.0.0.1:1/y" }));
        await store.recordUse(use({ outcome: "refused", target: "http://10.0.0.1/", bytes: 0, message: "private", at: 3000 }));
        const { counters, latest } = await store.readUses("agent:a", 10);
        assert.deepEqual(counters, [
          { tool: "t", effect: "net_read", outcome: "ok", uses: 2, bytes: 15, lastTarget: "http://127.0.0.1:1/y", lastAt: 2000 },
          { tool: "t", effect: "net_read", outcome: "refused", uses: 1, bytes: 0, lastTarget: "http://10.0.0.1/", lastAt: 3000 },
        ]);
        assert.deepEqual(latest.map((entry) => [entry.outcome, entry.target, entry.message]), [
          ["refused", "http://10.0.0.1/", "private"],
          ["ok", "http://127.0.0.1:1/y", undefined],
          ["ok", "http://127.0.0.1:1/x", undefined],
        ]);
        assert.deepEqual(await store.readUses("agent:none", 10), { counters: [], latest: [] });
      } finally {
        await store.close();
      }
    });

    stateRaceCases(open, reopen);

    if (reopen !== undefined) {
      it("keeps state and uses across a reopen", async () => {
        const first = open();
        await first.stateSet("agent:r", "kept", '"yes"', LIMITS);
        await first.recordUse(use({ source: "agent:r" }));
        await first.close();
        const second = reopen();
        try {
          assert.equal(await second.stateGet("agent:r", "kept"), '"yes"');
          assert.equal((await second.readUses("agent:r", 5)).latest.length, 1);
        } finally {
          await second.close();
        }
      });
    }

    it("throws a typed error after close", async () => {
      const store = open();
      await store.close();
      assert.equal(store.alive, false);
      await assert.rejects(store.stateGet("agent:a", "k"), { code: "ledger_closed" });
    });
  });
}
