import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, withHost } from "../../test/helpers/host.js";
import { BundleCache } from "./cache.js";

const SOURCE = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "cached",
  description: "a tool for the cache tests",
  input: z.object({}),
  effects: [],
  run() { return "from the cache test"; },
});
`;

function compiledOk<T extends { ok: boolean }>(result: T): Extract<T, { ok: true }> {
  assert.equal(result.ok, true, JSON.stringify(result));
  return result as Extract<T, { ok: true }>;
}

describe("BundleCache", { timeout: 60_000 }, () => {
  const dir = tempDir("corral-cache-");
  after(() => dir.remove());

  it("compiles the same source text once: the second load is a hit with the same bundle", async () => {
    const cache = new BundleCache(join(dir.path, "text"));
    const first = compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:a" }));
    const second = compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:a" }));
    assert.equal(cache.misses, 1);
    assert.equal(cache.hits, 1);
    assert.equal(first.cached, false);
    assert.equal(second.cached, true);
    assert.equal(second.hash, first.hash);
    assert.equal(second.code, first.code);
    assert.match(first.hash, /^[0-9a-f]{64}$/);
  });

  it("keys text by its source name too: another agent's identical text is compiled for it", async () => {
    const cache = new BundleCache(false);
    compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:a" }));
    compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:b" }));
    assert.equal(cache.misses, 2);
    assert.equal(cache.hits, 0);
  });

  it("without a folder (cacheDir false) still hits in memory and names no file", async () => {
    const cache = new BundleCache(false);
    const first = compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:mem" }));
    const second = compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:mem" }));
    assert.equal(first.path, undefined);
    assert.equal(second.cached, true);
    assert.equal(cache.hits, 1);
  });

  it("writes bundles/<sha256>.js and entries/<key>.json, and a new cache on the same folder hits the disk", async () => {
    const folder = join(dir.path, "disk");
    const first = compiledOk(await new BundleCache(folder).compile({ kind: "text", code: SOURCE, sourceName: "agent:disk" }));
    assert.ok(first.path !== undefined && existsSync(first.path));
    assert.equal(first.path, join(folder, "bundles", `${first.hash}.js`));
    assert.equal(readFileSync(first.path, "utf8"), first.code);
    assert.equal(readdirSync(join(folder, "entries")).length, 1);

    const restarted = new BundleCache(folder);
    const again = compiledOk(await restarted.compile({ kind: "text", code: SOURCE, sourceName: "agent:disk" }));
    assert.equal(restarted.hits, 1);
    assert.equal(restarted.misses, 0);
    assert.equal(again.cached, true);
    assert.equal(again.hash, first.hash);
    assert.equal(again.code, first.code);
  });

  it("never serves a bundle file whose content no longer matches its hash", async () => {
    const folder = join(dir.path, "tampered");
    const first = compiledOk(await new BundleCache(folder).compile({ kind: "text", code: SOURCE, sourceName: "agent:t" }));
    assert.ok(first.path !== undefined);
    writeFileSync(first.path, "globalThis.evil = true;");
    const restarted = new BundleCache(folder);
    const again = compiledOk(await restarted.compile({ kind: "text", code: SOURCE, sourceName: "agent:t" }));
    assert.equal(restarted.hits, 0, "a tampered bundle must not be a hit");
    assert.equal(restarted.misses, 1);
    assert.equal(again.code, first.code);
    assert.equal(readFileSync(first.path, "utf8"), first.code, "the recompiled bundle replaced the tampered file");
  });

  it("a file source is a hit until a file it imports changes, across restarts too", async () => {
    const folder = join(dir.path, "files");
    const root = join(dir.path, "plugin");
    mkdirSync(join(root, "lib"), { recursive: true });
    const entry = join(root, "index.ts");
    writeFileSync(join(root, "lib", "word.ts"), 'export const word = "first";\n');
    writeFileSync(entry, SOURCE.replace('return "from the cache test";', "return word;").replace('import { z } from "zod";', 'import { z } from "zod";\nimport { word } from "./lib/word.ts";'));

    const cache = new BundleCache(folder);
    const first = compiledOk(await cache.compile({ kind: "file", entry, root }));
    const hit = compiledOk(await cache.compile({ kind: "file", entry, root }));
    assert.equal(hit.cached, true);
    assert.equal(cache.hits, 1);
    assert.ok(first.code.includes('"first"'));

    writeFileSync(join(root, "lib", "word.ts"), 'export const word = "second";\n');
    const edited = compiledOk(await cache.compile({ kind: "file", entry, root }));
    assert.equal(edited.cached, false, "an edited import must invalidate the entry");
    assert.equal(cache.misses, 2);
    assert.notEqual(edited.hash, first.hash);
    assert.ok(edited.code.includes('"second"'));

    const restarted = new BundleCache(folder);
    const afterRestart = compiledOk(await restarted.compile({ kind: "file", entry, root }));
    assert.equal(afterRestart.cached, true);
    assert.equal(afterRestart.hash, edited.hash);

    writeFileSync(join(root, "lib", "word.ts"), 'export const word = "third";\n');
    const editedAgain = compiledOk(await new BundleCache(folder).compile({ kind: "file", entry, root }));
    assert.equal(editedAgain.cached, false, "a new cache on the same folder sees the edit too");
    assert.ok(editedAgain.code.includes('"third"'));
  });

  it("a failed compile is not cached: fixing the text compiles it", async () => {
    const cache = new BundleCache(false);
    const broken = await cache.compile({ kind: "text", code: "export const = ;", sourceName: "agent:broken" });
    assert.equal(broken.ok, false);
    const again = await cache.compile({ kind: "text", code: "export const = ;", sourceName: "agent:broken" });
    assert.equal(again.ok, false);
    assert.equal(cache.hits, 0);
    compiledOk(await cache.compile({ kind: "text", code: SOURCE, sourceName: "agent:broken" }));
  });
});

describe("the host's use of the bundle cache", { timeout: 60_000 }, () => {
  it("loading the same source twice reports the second load as cached, with the same version", async () => {
    await withHost(async (host) => {
      const first = await host.load({ source: "agent:twice", code: SOURCE });
      const second = await host.load({ source: "agent:twice", code: SOURCE });
      assert.ok(first.ok && second.ok, JSON.stringify([first, second]));
      assert.equal(first.cached, false);
      assert.equal(second.cached, true);
      assert.equal(second.version, first.version);
      const result = await host.call("cached", {});
      assert.ok(result.ok);
      assert.equal(result.output, "from the cache test");
    });
  });
});
