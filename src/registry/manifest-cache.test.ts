/**
 * The manifest cache on a real folder: what a second instance (a new host)
 * reads back, and every file it must refuse: another runtime, other describe
 * limits, garbage, a wrong shape, a wrong key or bundle, a manifest the host's
 * check refuses. A refusal is a miss, never a throw.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { tempDir } from "../../test/helpers/host.js";
import { guestRuntimeId, ManifestCache, type ManifestCacheOptions } from "./manifest-cache.js";
import type { Manifest } from "./manifest.js";

const BUNDLE = "a".repeat(64);
const OTHER_BUNDLE = "b".repeat(64);
const LIMITS = { timeoutMs: 2000, memoryMb: 64, maxOutputBytes: 1 << 20, maxDepth: 64 };
const MANIFESTS: Manifest[] = [
  { name: "echo", description: "echoes", inputSchema: { type: "object" }, effects: [], exposure: "direct", limits: {} },
  { name: "shout", description: "shouts", inputSchema: { type: "object" }, effects: ["net_read"], exposure: "deferred", limits: { timeoutMs: 100 } },
];

function withFolder(fn: (dir: string, open: (options?: Partial<ManifestCacheOptions>) => ManifestCache) => void): void {
  const folder = tempDir();
  try {
    const dir = join(folder.path, "cache");
    fn(dir, (options = {}) => new ManifestCache({ dir, describeLimits: LIMITS, logger: pino({ level: "silent" }), runtimeId: "runtime-1", ...options }));
  } finally {
    folder.remove();
  }
}

function onlyFile(dir: string): string {
  const names = readdirSync(join(dir, "manifests"));
  assert.equal(names.length, 1, names.join(", "));
  return join(dir, "manifests", names[0] as string);
}

describe("ManifestCache", { timeout: 60_000 }, () => {
  it("answers from memory first, and a new instance on the same folder reads the file", () => {
    withFolder((dir, open) => {
      const first = open();
      assert.equal(first.get(BUNDLE), undefined);
      first.set(BUNDLE, MANIFESTS);
      assert.deepEqual(first.get(BUNDLE), { manifests: MANIFESTS, origin: "memory" });
      assert.deepEqual(open().get(BUNDLE), { manifests: MANIFESTS, origin: "disk" });
      assert.equal(open().get(OTHER_BUNDLE), undefined);
    });
  });

  it("keys by the guest runtime and the describe limits: another runtime or other limits miss", () => {
    withFolder((dir, open) => {
      open().set(BUNDLE, MANIFESTS);
      onlyFile(dir);
      assert.equal(open({ runtimeId: "runtime-2" }).get(BUNDLE), undefined);
      assert.equal(open({ describeLimits: { ...LIMITS, maxOutputBytes: 1000 } }).get(BUNDLE), undefined);
      assert.equal(open().get(BUNDLE)?.origin, "disk", "the same runtime and limits still read it");
    });
  });

  it("refuses garbage, a wrong shape, a wrong key or bundle, and manifests the host's check refuses, without throwing", () => {
    withFolder((dir, open) => {
      open().set(BUNDLE, MANIFESTS);
      const file = onlyFile(dir);
      const good = JSON.parse(readFileSync(file, "utf8"));
      assert.deepEqual(good.manifests, MANIFESTS);
      const bad: [string, string][] = [
        ["garbage", "{ not json"],
        ["empty", ""],
        ["an array", "[]"],
        ["an unknown key", JSON.stringify({ ...good, extra: 1 })],
        ["another format", JSON.stringify({ ...good, format: 2 })],
        ["another key", JSON.stringify({ ...good, key: "c".repeat(64) })],
        ["another bundle", JSON.stringify({ ...good, bundleHash: OTHER_BUNDLE })],
        ["another runtime", JSON.stringify({ ...good, runtime: "runtime-0" })],
        ["a bad tool name", JSON.stringify({ ...good, manifests: [{ ...MANIFESTS[0], name: "not a name!" }] })],
        ["an empty description", JSON.stringify({ ...good, manifests: [{ ...MANIFESTS[0], description: "" }] })],
        ["effects that are not a list", JSON.stringify({ ...good, manifests: [{ ...MANIFESTS[0], effects: "all" }] })],
        ["two tools of one name", JSON.stringify({ ...good, manifests: [MANIFESTS[0], MANIFESTS[0]] })],
      ];
      for (const [what, text] of bad) {
        writeFileSync(file, text);
        assert.equal(open().get(BUNDLE), undefined, what);
      }
      writeFileSync(file, JSON.stringify(good));
      assert.equal(open().get(BUNDLE)?.origin, "disk", "the good file again is read");
    });
  });

  it("a describe after a miss overwrites the bad file", () => {
    withFolder((dir, open) => {
      open().set(BUNDLE, MANIFESTS);
      const file = onlyFile(dir);
      writeFileSync(file, "{ not json");
      const cache = open();
      assert.equal(cache.get(BUNDLE), undefined);
      cache.set(BUNDLE, MANIFESTS);
      assert.equal(open().get(BUNDLE)?.origin, "disk");
      assert.deepEqual(readdirSync(join(dir, "manifests")), [file.slice(file.lastIndexOf("/") + 1)], "no temporary file is left");
    });
  });

  it("without a folder (cacheDir false) keeps manifests in memory only", () => {
    withFolder((dir, open) => {
      const cache = open({ dir: false });
      cache.set(BUNDLE, MANIFESTS);
      assert.equal(cache.get(BUNDLE)?.origin, "memory");
      assert.equal(open().get(BUNDLE), undefined);
      assert.throws(() => readdirSync(dir));
    });
  });

  it("by default keys by the sha256 of the built guest runtime", () => {
    assert.match(guestRuntimeId() ?? "", /^[0-9a-f]{64}$/);
    withFolder((dir, open) => {
      open({ runtimeId: undefined }).set(BUNDLE, MANIFESTS);
      assert.equal(JSON.parse(readFileSync(onlyFile(dir), "utf8")).runtime, guestRuntimeId());
    });
  });
});
