import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { runCli, toolModule, writeTool, type CliRun } from "./cli-process.js";

describe("corral check and corral list", { timeout: 120_000 }, () => {
  const dir = tempDir("corral-cli-check-");
  const cacheDir = join(dir.path, "cache");
  const corral = (...args: string[]): Promise<CliRun> => runCli(args, { cwd: dir.path, cacheDir });
  const good = join(dir.path, "good");
  const mixed = join(dir.path, "mixed");

  before(() => {
    mkdirSync(good);
    mkdirSync(mixed);
    const wordCount = toolModule({
      name: "word_count",
      description: "Counts words.\nSplits on whitespace.",
      input: "z.object({ text: z.string().describe('the text') })",
      run: "return input.text.split(/\\s+/).filter(Boolean).length;",
    });
    writeTool(good, "word-count.ts", wordCount);
    // A plugin folder with its own entry, beside a plain tool file.
    mkdirSync(join(good, "shout"));
    writeTool(join(good, "shout"), "index.ts", toolModule({ name: "shout", input: "z.object({ text: z.string() })", run: "return input.text.toUpperCase();" }));
    writeFileSync(join(good, "word-count.test.ts"), "this is a test file, never loaded as a plugin");

    writeTool(mixed, "word-count.ts", wordCount);
    writeTool(mixed, "broken.ts", 'import { defineTool } from "corral";\nexport default defineTool({ name: "broken", input: ) });\n');
  });
  after(() => dir.remove());

  it("check prints a tool's manifest and exits 0", async () => {
    const run = await corral("check", join(good, "word-count.ts"));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^ok {3}plugin:good\/word-count\.ts \(1 tool/m);
    assert.match(run.stdout, /^ {2}word_count {2}\(plugin:good\/word-count\.ts, version [0-9a-f]{12}\)$/m);
    assert.match(run.stdout, /Splits on whitespace\./);
    assert.match(run.stdout, /effects: {2}none \(pure\)/);
    assert.match(run.stdout, /exposure: direct/);
    assert.match(run.stdout, /limits: {3}\d+ ms, \d+ MB/);
    assert.match(run.stdout, /"description": "the text"/, "the input JSON schema is shown");
  });

  it("check again says what came from the cache folder", async () => {
    const shout = join(good, "shout");
    await corral("check", shout);
    const again = await corral("check", shout);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /^ok {3}plugin:good\/shout \(1 tool, bundle and manifests from cache\)$/m);
  });

  it("check --json prints the LoadResult", async () => {
    const run = await corral("check", join(good, "word-count.ts"), "--json");
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { ok: boolean; tools: { name: string; inputSchema: { required: string[] } }[] };
    assert.equal(result.ok, true);
    assert.equal(result.tools[0]?.name, "word_count");
    assert.deepEqual(result.tools[0]?.inputSchema.required, ["text"]);
  });

  it("check on a folder of plugins checks each one; a failure gives exit 1 with diagnostics", async () => {
    const ok = await corral("check", good, "--json");
    assert.equal(ok.code, 0, ok.stdout);
    const results = JSON.parse(ok.stdout) as { ok: boolean; source: string }[];
    assert.deepEqual(results.map((r) => [r.source, r.ok]), [
      ["plugin:good/shout", true],
      ["plugin:good/word-count.ts", true],
    ]);

    const failed = await corral("check", mixed);
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /^FAIL plugin:mixed\/broken\.ts$/m);
    assert.match(failed.stdout, /error compile_error: broken\.ts:2:\d+: /);
    assert.match(failed.stdout, /^ok {3}plugin:mixed\/word-count\.ts/m, "the good plugin is still checked");
    assert.match(failed.stdout, /2 checked, 1 failed/);
  });

  it("check on a path that does not exist is a usage error", async () => {
    const run = await corral("check", "nowhere.ts");
    assert.equal(run.code, 2);
    assert.match(run.stderr, /nowhere\.ts does not exist/);
  });

  it("list prints one line per tool with source, exposure and the description's first line", async () => {
    const run = await corral("list", good);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^NAME +SOURCE +EXPOSURE +DESCRIPTION$/);
    assert.deepEqual(lines.slice(1).map((line) => line.split(/\s{2,}/)), [
      ["shout", "plugin:good/shout", "direct", "test tool shout"],
      ["word_count", "plugin:good/word-count.ts", "direct", "Counts words."],
    ]);
  });

  it("list --json gives tools and failures; a failed source makes exit 1", async () => {
    const run = await corral("list", mixed, "--json");
    assert.equal(run.code, 1);
    const listed = JSON.parse(run.stdout) as { tools: { name: string }[]; failures: { source: string; error: { kind: string } }[] };
    assert.deepEqual(listed.tools.map((t) => t.name), ["word_count"]);
    assert.deepEqual(listed.failures.map((f) => [f.source, f.error.kind]), [["plugin:mixed/broken.ts", "compile_error"]]);
  });

  it("list without a folder lists the bundled plugins", async () => {
    const run = await corral("list", "--json");
    const listed = JSON.parse(run.stdout) as { tools: { source: string }[]; failures: unknown[] };
    // Bundled plugins are loaded from the package, not from the working directory.
    for (const tool of listed.tools) assert.match(tool.source, /^plugin:corral\/[a-z-]+$/);
    assert.equal(run.code, listed.failures.length === 0 ? 0 : 1);
  });
});
