/**
 * @module src/library/store.case
 * One suite for every LibraryStore: versions, rollback, retirement, names
 * and limits; survival across a reopen; and, for stores two processes can
 * share (`reopen` opens a second store on the same database while the
 * first is open), races decided once and changes seen by the other.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { LibraryStore } from "./store.js";
import type { PublishDraft } from "./types.js";

const LIMITS = { maxTools: 3 };

export function draft(agent: string, code: string, names: string[], at = 1_000): PublishDraft {
  const hash = createHash("sha256").update(code).digest("hex");
  return { agent, caller: "mcp:s1", code, hash, manifests: names.map((name) => ({ name, json: JSON.stringify({ name, description: `${name} of ${code.length}` }) })), at };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
}

export function libraryStoreSuite(name: string, open: () => LibraryStore, reopen?: () => LibraryStore): void {
  describe(`${name} library store`, { timeout: 30_000 }, () => {
    it("versions a tool per publish, keeps every version, and rolls back and retires", async () => {
      const store = open();
      try {
        const first = await store.publish(draft("a", "one", ["t", "u"]), LIMITS);
        assert.deepEqual(first, { ok: true, tools: [{ name: "t", version: 1, unchanged: false }, { name: "u", version: 1, unchanged: false }] });
        assert.deepEqual(await store.publish(draft("a", "one", ["t"], 2_000), LIMITS), { ok: true, tools: [{ name: "t", version: 1, unchanged: true }] }, "the same module again is no new version");
        assert.deepEqual(await store.publish(draft("a", "two!", ["t"], 3_000), LIMITS), { ok: true, tools: [{ name: "t", version: 2, unchanged: false }] });
        const current = await store.current();
        assert.deepEqual(current.map((tool) => [tool.name, tool.current, tool.versions, tool.hash === draft("a", "two!", []).hash]), [["t", 2, 2, true], ["u", 1, 1, false]]);
        assert.equal(await store.code(draft("a", "one", []).hash), "one");
        assert.equal(await store.code("0".repeat(64)), undefined);
        const versions = await store.versions("t");
        assert.deepEqual(versions.map((v) => [v.version, v.agent, v.caller, v.createdAt]), [[2, "a", "mcp:s1", 3_000], [1, "a", "mcp:s1", 1_000]]);

        const back = await store.setCurrent("t", 1, { agent: "a", at: 4_000 });
        assert.equal(back.ok && back.tool.current, 1);
        assert.equal((await store.current()).find((tool) => tool.name === "t")?.hash, draft("a", "one", []).hash, "rolled back to version 1's module");
        const retired = await store.retire("u", { at: 5_000 });
        assert.equal(retired.ok && retired.tool.retiredAt, 5_000);
        assert.deepEqual((await store.current()).map((tool) => tool.name), ["t"], "a retired tool is not served");
        assert.deepEqual((await store.tools("a")).map((tool) => [tool.name, tool.retiredAt]), [["t", null], ["u", 5_000]], "its record stays");
        const again = await store.publish(draft("a", "three", ["u"], 6_000), LIMITS);
        assert.deepEqual(again, { ok: true, tools: [{ name: "u", version: 2, unchanged: false }] }, "publishing a retired name makes it live as a new version");
      } finally {
        await store.close();
      }
    });

    it("refuses another agent's name, an agent past its limit, and changes to what is not there", async () => {
      const store = open();
      try {
        await store.publish(draft("a", "x", ["mine"]), LIMITS);
        assert.deepEqual(await store.publish(draft("b", "y", ["free", "mine"]), LIMITS), { ok: false, reason: "name_taken", name: "mine", owner: "agent:a" });
        assert.deepEqual((await store.tools("b")).length, 0, "a refused publish writes nothing");
        assert.deepEqual(await store.publish(draft("a", "z", ["p", "q", "r"]), LIMITS), { ok: false, reason: "too_many_tools", have: 4, max: 3 });
        assert.equal((await store.publish(draft("a", "z", ["p", "q"]), LIMITS)).ok, true);
        await store.retire("p", { agent: "a", at: 2_000 });
        assert.equal((await store.publish(draft("a", "w", ["s"]), LIMITS)).ok, true, "a retired tool frees its slot");
        assert.deepEqual(await store.setCurrent("mine", 9, { agent: "a", at: 1 }), { ok: false, reason: "no_such_version", message: '"mine" has no version 9 (it has versions 1 to 1)' });
        assert.equal((await store.setCurrent("mine", 1, { agent: "b", at: 1 })).ok, false, "another agent cannot roll back a tool");
        assert.equal((await store.retire("mine", { agent: "b", at: 1 })).ok, false, "nor retire it");
        assert.equal((await store.retire("nothing", { at: 1 })).ok, false);
        assert.deepEqual(await store.versions("nothing"), []);
      } finally {
        await store.close();
      }
    });

    if (reopen === undefined) return;

    it("keeps the library across a reopen", async () => {
      const store = open();
      await store.publish(draft("a", "kept", ["k"]), LIMITS);
      await store.close();
      const again = reopen();
      try {
        assert.deepEqual((await again.current()).map((tool) => [tool.name, tool.agent, tool.current]), [["k", "a", 1]]);
        assert.equal(await again.code(draft("a", "kept", []).hash), "kept");
      } finally {
        await again.close();
      }
    });

    it("decides races between two stores once, and tells the other of a change", async () => {
      const one = open();
      const two = reopen();
      try {
        await one.current();
        let heard = 0;
        const stop = one.watch?.(() => heard++);
        const [a, b] = await Promise.all([one.publish(draft("a", "ra", ["contested"]), LIMITS), two.publish(draft("b", "rb", ["contested"]), LIMITS)]);
        assert.equal([a, b].filter((outcome) => outcome.ok).length, 1, `exactly one agent takes the name: ${JSON.stringify([a, b])}`);
        assert.equal([a, b].filter((outcome) => !outcome.ok && outcome.reason === "name_taken").length, 1);
        const limited = await Promise.all([two.publish(draft("c", "c1", ["c1", "c2"]), LIMITS), one.publish(draft("c", "c3", ["c3", "c4"]), LIMITS)]);
        assert.equal(limited.filter((outcome) => outcome.ok).length, 1, `one of two publishes past the limit wins: ${JSON.stringify(limited)}`);
        assert.equal((await one.tools("c")).length, 2, "the agent's limit holds across both");
        if (stop !== undefined) {
          heard = 0;
          await two.retire("c1", { at: 9_000 });
          await two.retire("c3", { at: 9_000 });
          assert.ok(await until(() => heard > 0, 3_000), "the other store's watcher heard the change");
          stop();
        }
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });
  });
}
