/**
 * @module src/capabilities/capability-store-races.case
 * The shared capability-store suite's part on races: a source's quota of
 * bytes and of keys holds under concurrent `stateSet` calls, however many
 * are in flight, whether they come from one caller (one tool), from many
 * (several tools of the source, replacing keys too), or from two stores on
 * one database (two hosts of a fleet: two SQLite connections to one file,
 * two PostgreSQL pools on one schema). The rule: the writes kept are
 * exactly as many as fit, and the usage never passes the quota.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import { entryBytes, type CapabilityStore, type StateLimits } from "./capability-store.js";

/** `count` writes of `valueChars`-character strings under keys `<prefix><i>`, all in flight at once; spread over `stores` in turn. */
async function raceSets(stores: CapabilityStore[], source: string, prefix: string, count: number, valueChars: number, limits: StateLimits): Promise<{ kept: string[]; refused: number }> {
  const value = JSON.stringify("x".repeat(valueChars));
  const keys = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(2, "0")}`);
  const answers = await Promise.all(keys.map((key, i) => (stores[i % stores.length] as CapabilityStore).stateSet(source, key, value, limits)));
  return { kept: keys.filter((_, i) => answers[i]?.ok === true), refused: answers.filter((answer) => !answer.ok).length };
}

/** How many entries of these sizes fit in `limits` (the exact count a store must keep). */
function fitting(keyChars: number, valueChars: number, limits: StateLimits, count: number): number {
  const one = keyChars + valueChars + 2;
  return Math.min(count, limits.maxKeys, Math.floor(limits.quotaBytes / one));
}

/** Checks `store`'s view of the source after a race: as many keys as fit, the bytes within the quota and equal to what was kept. */
async function assertHeld(store: CapabilityStore, source: string, kept: string[], expected: number, limits: StateLimits): Promise<void> {
  assert.equal(kept.length, expected, `${kept.length} writes kept where ${expected} fit`);
  const usage = await store.stateUsage(source);
  assert.ok(usage.bytes <= limits.quotaBytes, `usage ${usage.bytes} bytes past the quota ${limits.quotaBytes}`);
  assert.ok(usage.keys <= limits.maxKeys, `usage ${usage.keys} keys past the limit ${limits.maxKeys}`);
  const listed = await store.stateList(source, "", 10_000);
  assert.deepEqual(listed, [...kept].sort());
  let bytes = 0;
  for (const key of listed) bytes += entryBytes(key, (await store.stateGet(source, key)) ?? "");
  assert.equal(usage.bytes, bytes);
}

/** Registers the race tests inside the store's describe; `twin` opens a second store on the same database as the last `open()`. */
export function stateRaceCases(open: () => CapabilityStore, twin?: () => CapabilityStore): void {
  const BYTES: StateLimits = { quotaBytes: 50_000, maxKeys: 1_000 };
  const KEYS: StateLimits = { quotaBytes: 1_000_000, maxKeys: 7 };

  it("holds the quota of bytes under 40 concurrent sets of one source (issue 27: 40 × 5,000 bytes against 50,000)", async () => {
    const store = open();
    try {
      const { kept } = await raceSets([store], "agent:race", "k", 40, 4_998, BYTES);
      await assertHeld(store, "agent:race", kept, fitting(3, 4_998, BYTES, 40), BYTES);
    } finally {
      await store.close();
    }
  });

  it("holds the limit of keys under concurrent sets, and a refusal leaves the room to the others", async () => {
    const store = open();
    try {
      const { kept, refused } = await raceSets([store], "agent:keys", "n", 30, 3, KEYS);
      assert.equal(refused, 30 - KEYS.maxKeys);
      await assertHeld(store, "agent:keys", kept, KEYS.maxKeys, KEYS);
    } finally {
      await store.close();
    }
  });

  it("holds both under concurrent sets from many writers of a source: new keys, replacements and deletes at once", async () => {
    const store = open();
    const source = "agent:many";
    try {
      // Three keys first; then each writer of the source at once: grow them, add new ones, delete one.
      for (const key of ["a", "b", "c"]) assert.deepEqual(await store.stateSet(source, key, '"small"', BYTES), { ok: true });
      const big = JSON.stringify("y".repeat(9_000));
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 12; i++) work.push(store.stateSet(source, ["a", "b", "c"][i % 3] as string, big, BYTES));
      work.push(raceSets([store], source, "w", 20, 4_998, BYTES));
      work.push(store.stateDelete(source, "c"));
      await Promise.all(work);
      const usage = await store.stateUsage(source);
      assert.ok(usage.bytes <= BYTES.quotaBytes, `usage ${usage.bytes} bytes past the quota ${BYTES.quotaBytes}`);
      let bytes = 0;
      for (const key of await store.stateList(source, "", 10_000)) bytes += entryBytes(key, (await store.stateGet(source, key)) ?? "");
      assert.equal(usage.bytes, bytes);
    } finally {
      await store.close();
    }
  });

  if (twin !== undefined) {
    it("holds the quota under concurrent sets from two stores on one database (two hosts)", async () => {
      const first = open();
      const second = twin();
      try {
        const bytes = await raceSets([first, second], "agent:fleet", "k", 40, 4_998, BYTES);
        await assertHeld(first, "agent:fleet", bytes.kept, fitting(3, 4_998, BYTES, 40), BYTES);
        const keys = await raceSets([second, first], "agent:fleet-keys", "n", 30, 3, KEYS);
        await assertHeld(second, "agent:fleet-keys", keys.kept, KEYS.maxKeys, KEYS);
      } finally {
        await first.close();
        await second.close();
      }
    });
  }
}
