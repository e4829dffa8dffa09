/**
 * The README's examples marked `<!-- example: name -->` run as written, with
 * "corral" pointing at this build.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempDir } from "./helpers/host.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENTRY = pathToFileURL(join(ROOT, "dist/src/index.js")).href;

function examples(): { name: string; code: string }[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const found: { name: string; code: string }[] = [];
  const pattern = /<!-- example: ([\w-]+) -->\s*```ts\n([\s\S]*?)```/g;
  for (const match of readme.matchAll(pattern)) found.push({ name: match[1] as string, code: match[2] as string });
  return found;
}

describe("README examples", { timeout: 60_000 }, () => {
  it("has examples to run", () => {
    assert.ok(examples().length >= 1);
  });
  for (const example of examples()) {
    it(`runs "${example.name}"`, () => {
      const dir = tempDir();
      try {
        const file = join(dir.path, `${example.name}.mjs`);
        // Only the example's own top-level imports: tool source inside it keeps "corral".
        writeFileSync(file, example.code.replace(/^(import .*) from "corral";$/gm, `$1 from ${JSON.stringify(ENTRY)};`));
        const run = spawnSync(process.execPath, [file], { cwd: dir.path, encoding: "utf8", timeout: 30_000 });
        assert.equal(run.status, 0, run.stderr);
        // The comments in the example say what it prints.
        const expected = [...example.code.matchAll(/\/\/ (.+)$/gm)].map((m) => (m[1] as string).trim());
        for (const line of expected) assert.ok(run.stdout.includes(line), `expected output "${line}" in:\n${run.stdout}`);
      } finally {
        dir.remove();
      }
    });
  }
});
