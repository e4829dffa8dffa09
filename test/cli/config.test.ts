/**
 * corral.json through the real bin: found from a folder below it, given
 * with --config, ignored with --no-config; its paths and the plugin source
 * ids are the config folder's, so the same project keeps one ledger and one
 * record per tool from any working folder; flags override it; a bad one
 * stops every kind of command with exit 2 before anything starts (no cache
 * or ledger written, no worker).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { runCli, toolModule, writeTool } from "./cli-process.js";

type Listed = { tools: { name: string; source: string }[] };

describe("corral.json on the command line", { timeout: 180_000 }, () => {
  const dir = tempDir("corral-cli-config-");
  const project = join(dir.path, "project");
  const below = join(project, "src", "deep");
  const corral = (cwd: string, ...args: string[]) => runCli(args, { cwd });

  before(() => {
    mkdirSync(below, { recursive: true });
    mkdirSync(join(project, "tools"));
    writeTool(join(project, "tools"), "shout.ts", toolModule({ name: "shout", input: "z.object({ text: z.string() })", run: "return input.text.toUpperCase();" }));
    writeFileSync(
      join(project, "corral.json"),
      `{
  // the project's own tools, and where corral keeps its state: beside this file
  "tools": ["./tools"],
  "cacheDir": ".state/cache",
  "ledger": { "store": ".state/ledger.db" },
}`,
    );
  });
  after(() => dir.remove());

  it("gives the same source ids and one ledger from the project folder and from a folder below it", async () => {
    const top = await corral(project, "list", "--json");
    const deep = await corral(below, "list", "--json");
    assert.equal(top.code, 0, top.stderr);
    assert.equal(deep.code, 0, deep.stderr);
    const sources = (run: typeof top) => (JSON.parse(run.stdout) as Listed).tools.map((tool) => `${tool.name} ${tool.source}`);
    assert.deepEqual(sources(top), ["shout plugin:tools/shout.ts"]);
    assert.deepEqual(sources(deep), sources(top));

    const call = await corral(below, "run", "shout", "--input", '{"text":"hi"}');
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, "HI\n");
    assert.ok(existsSync(join(project, ".state", "ledger.db")), "the ledger is the config's, beside it");
    assert.ok(!existsSync(join(below, ".corral")), "nothing is written in the working folder");
    const audit = await corral(project, "audit", "--json");
    assert.equal(audit.code, 0, audit.stderr);
    assert.deepEqual((JSON.parse(audit.stdout) as { source: string }[]).map((row) => row.source), ["plugin:tools/shout.ts"]);
  });

  it("takes --config from anywhere, and --no-config ignores the file found", async () => {
    const given = await corral(dir.path, "--config", join(project, "corral.json"), "list", "--json");
    assert.equal(given.code, 0, given.stderr);
    assert.deepEqual((JSON.parse(given.stdout) as Listed).tools.map((tool) => tool.source), ["plugin:tools/shout.ts"]);
    const none = await corral(project, "--no-config", "list", "--json");
    assert.equal(none.code, 0, none.stderr);
    const bundled = (JSON.parse(none.stdout) as Listed).tools;
    assert.ok(bundled.length > 0 && bundled.every((tool) => /^plugin:corral\/[a-z-]+$/.test(tool.source)), none.stdout);
  });

  it("lets flags override the file", async () => {
    const other = join(dir.path, "other.db");
    const call = await corral(project, "--ledger", other, "run", "shout", "--input", '{"text":"x"}');
    assert.equal(call.code, 0, call.stderr);
    assert.ok(existsSync(other), "--ledger wins over ledger.store");
    const listed = await corral(project, "list", join(project, "tools"), "--json");
    assert.equal(listed.code, 0, listed.stderr);
  });

  it("stops every kind of command on a bad config with exit 2, its line and key, before anything starts", async () => {
    const bad = join(dir.path, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "corral.json"), '{\n  "workers": 1,\n  "mcp": { "port": "8080" }\n}\n');
    for (const args of [["list"], ["run", "shout"], ["check"], ["audit"], ["quarantine", "agent:x"], ["release", "agent:x"], ["mcp"], ["dashboard"], ["demo"]]) {
      const run = await corral(bad, ...args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, /^corral: corral\.json is not a valid config:$/m, args.join(" "));
      assert.match(run.stderr, /corral\.json:3:20 {2}mcp\.port: expected number, received string/, args.join(" "));
      assert.equal(run.stdout, "", args.join(" "));
    }
    assert.ok(!existsSync(join(bad, ".corral")), "no cache, no ledger: nothing started");
    // Once the types hold, the paths are checked: a tools entry that is not there.
    writeFileSync(join(bad, "corral.json"), '{\n  "tools": ["./tools"]\n}\n');
    const missing = await corral(bad, "mcp");
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /corral\.json:2:13 {2}tools\[0\]: nothing is at .*tools; give a tool file, a plugin folder or a folder of plugins/);
    const ignored = await corral(bad, "--no-config", "list", join(project, "tools"));
    assert.equal(ignored.code, 0, ignored.stderr);
  });

  it("says so when a ledger command is pointed at a config whose ledger is in memory", async () => {
    const memory = join(dir.path, "memory");
    mkdirSync(memory);
    writeFileSync(join(memory, "corral.json"), '{ "ledger": { "store": false } }');
    const run = await corral(memory, "audit");
    assert.equal(run.code, 1);
    assert.match(run.stderr, /keeps the ledger in memory \(ledger\.store: false\)/);
  });
});
