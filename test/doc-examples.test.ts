/**
 * The examples in README.md and docs/telemetry.md marked
 * `<!-- example: name -->` run as written, with "corral" (and its subpaths,
 * corral/mcp and the like) pointing at this build, in a folder inside the
 * package (so the SDKs they import resolve) holding the bundled plugins as
 * ./plugins. The comments in an example say what it prints: each must be a
 * line of its output.
 * `<!-- example: name needs-node-22 -->` marks one whose SDK needs Node 22
 * or later: it is skipped, saying so, on older Node.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { skipBelowNode22 } from "./adapters/node-version.js";
import { docExamples } from "./helpers/doc-examples.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXPORTS = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { default: string }> }).exports;
/** The documents whose examples run, and how many each must have at least (a marker lost in an edit fails here). */
const DOCUMENTS = { "README.md": 6, "docs/telemetry.md": 1 } as const;

/** `corral` or `corral/<sub>` → this build's file, from package.json's exports. */
function entryOf(specifier: string): string {
  const target = EXPORTS[specifier === "corral" ? "." : `.${specifier.slice("corral".length)}`];
  assert.ok(target !== undefined, `package.json exports no ${specifier}`);
  return pathToFileURL(join(ROOT, typeof target === "string" ? target : target.default)).href;
}

const examples = (document: string) => docExamples(join(ROOT, document));

for (const [document, atLeast] of Object.entries(DOCUMENTS)) {
  describe(`${document} examples`, { timeout: 60_000 }, () => {
    it(`has at least ${atLeast} example(s) to run`, () => {
      assert.ok(examples(document).length >= atLeast);
    });
    for (const example of examples(document)) {
      it(`runs "${example.name}"`, { skip: example.needsNode22 ? skipBelowNode22(`the "${example.name}" example's SDK`) : false }, () => {
        // Inside the package, so that the example's own imports (the SDKs) resolve from its node_modules.
        const dir = mkdtempSync(join(ROOT, "dist", "doc-example-"));
        try {
          const file = join(dir, `${example.name}.mjs`);
          // Only the example's own top-level imports: tool source inside it keeps "corral".
          writeFileSync(file, example.code.replace(/^(import .*) from "(corral(?:\/[\w-]+)?)";$/gm, (_line, head: string, specifier: string) => `${head} from ${JSON.stringify(entryOf(specifier))};`));
          // A project of the user's own, with the bundled plugins as its ./plugins.
          symlinkSync(join(ROOT, "plugins"), join(dir, "plugins"), "dir");
          const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 60_000 });
          assert.equal(run.status, 0, run.stderr);
          assert.ok(example.expected.length > 0, "an example says what it prints");
          for (const line of example.expected) assert.ok(run.stdout.includes(line), `expected output "${line}" in:\n${run.stdout}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}
