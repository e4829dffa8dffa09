/**
 * Every corral.json the docs show (the ```jsonc blocks of README.md and
 * docs/config.md) passes the check every command makes, in a project
 * folder that has the folders they name; and the docs list every key the
 * schema takes.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkConfigText, CorralConfig } from "../src/config/index.js";
import { tempDir } from "./helpers/host.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOCUMENTS = ["README.md", "docs/config.md"];

function jsoncBlocks(text: string): string[] {
  return [...text.matchAll(/^```jsonc\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
}

describe("the corral.json examples in the docs", () => {
  const project = tempDir("corral-config-docs-");
  for (const folder of ["tools", "node_modules/corral/plugins"]) mkdirSync(join(project.path, folder), { recursive: true });
  after(() => project.remove());

  for (const document of DOCUMENTS) {
    it(`${document}: each example is a valid config`, () => {
      const blocks = jsoncBlocks(readFileSync(join(ROOT, document), "utf8"));
      assert.ok(blocks.length > 0, `${document} shows a corral.json`);
      for (const block of blocks) assert.doesNotThrow(() => checkConfigText(block, join(project.path, "corral.json")), block);
    });
  }

  it("docs/config.md names every key of the schema", () => {
    const text = readFileSync(join(ROOT, "docs/config.md"), "utf8");
    const missing = Object.keys(CorralConfig.shape).filter((key) => !text.includes(`\`${key}\``));
    assert.deepEqual(missing, []);
  });
});
