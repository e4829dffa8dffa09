/**
 * @module plugins/file-search/file-search.test
 * file_search through a real host over a real temporary workspace: literal
 * and regex matches with paths and line numbers, extension and folder
 * filters, skipped folders and links, and nothing outside the root.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Host, ToolResult } from "../../src/index.js";
import { tempDir, withHost } from "../../test/helpers/host.js";

const PLUGIN = fileURLToPath(new URL("../../../plugins/file-search", import.meta.url));
let dir: { path: string; remove: () => void };
let root: string;

before(() => {
  dir = tempDir("corral-search-");
  root = join(dir.path, "ws");
  mkdirSync(join(root, "docs", "deep"), { recursive: true });
  mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
  mkdirSync(join(dir.path, "outside"));
  writeFileSync(join(root, "docs", "a.md"), "# Title\nThe quick brown fox\nnothing here\n");
  writeFileSync(join(root, "docs", "deep", "b.txt"), "a Fox again\n");
  writeFileSync(join(root, "main.ts"), "const fox = 1;\n");
  writeFileSync(join(root, "node_modules", "pkg", "index.js"), "fox in deps\n");
  writeFileSync(join(root, "blob.bin"), Buffer.from([0, 1, 2, 102, 111, 120]));
  writeFileSync(join(dir.path, "outside", "secret.txt"), "fox secret\n");
  symlinkSync(join(dir.path, "outside"), join(root, "out-link"));
});
after(() => dir.remove());

type Found = { matches: { path: string; line: number; text: string }[]; filesSearched: number; truncated: boolean };

async function withTool(fn: (call: (input: unknown) => Promise<ToolResult>) => Promise<void>): Promise<void> {
  await withHost(
    async (host: Host) => {
      const loaded = await host.load({ path: PLUGIN });
      assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
      await fn((input) => host.call("file_search", input));
    },
    { effects: { plugin: { read: "allow" } }, capabilities: { fs: { root } } },
  );
}

const found = (result: ToolResult): Found => {
  assert.ok(result.ok, JSON.stringify(result));
  return result.structured as Found;
};

describe("file_search plugin", { timeout: 60_000 }, () => {
  it("finds a word in every text file, case-insensitively, skipping deps, binaries and links", async () => {
    await withTool(async (call) => {
      const result = found(await call({ query: "fox" }));
      assert.deepEqual(result.matches, [
        { path: "main.ts", line: 1, text: "const fox = 1;" },
        { path: "docs/a.md", line: 2, text: "The quick brown fox" },
        { path: "docs/deep/b.txt", line: 1, text: "a Fox again" },
      ]);
      assert.equal(result.truncated, false);
    });
  });

  it("filters by folder, extension, case and regex; caps results", async () => {
    await withTool(async (call) => {
      assert.deepEqual(found(await call({ query: "fox", path: "docs", extensions: [".txt"] })).matches.map((m) => m.path), ["docs/deep/b.txt"]);
      assert.deepEqual(found(await call({ query: "Fox", caseSensitive: true })).matches.map((m) => m.path), ["docs/deep/b.txt"]);
      assert.deepEqual(found(await call({ query: "^#\\s+\\w+$", regex: true })).matches, [{ path: "docs/a.md", line: 1, text: "# Title" }]);
      const capped = found(await call({ query: "fox", maxResults: 1 }));
      assert.equal(capped.matches.length, 1);
      assert.equal(capped.truncated, true);
    });
  });

  it("cannot leave the workspace", async () => {
    await withTool(async (call) => {
      const escape = await call({ query: "secret", path: "../outside" });
      assert.equal(escape.ok, false);
      assert.match(escape.ok ? "" : escape.error.message, /"\.\." may not leave the workspace root/);
      const viaLink = await call({ query: "secret", path: "out-link" });
      assert.equal(viaLink.ok, false);
      assert.match(viaLink.ok ? "" : viaLink.error.message, /symbolic link/);
    });
  });
});
