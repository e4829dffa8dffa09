/**
 * The package as a user installs it: packed from this build, installed into
 * a fresh project outside the repository (user-project.ts says how), then
 * used there as the README says: every user-facing example of README.md, the
 * CLI from node_modules/.bin, and `tsc --strict` with `skipLibCheck: false`
 * over a file that uses the public API, in a project that has only corral,
 * zod and typescript.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { docExamples } from "../helpers/doc-examples.js";
import { CHECKOUT, checkoutVersion, installInFreshProject, NODE_MAJOR, packCheckout, type UserProject } from "./user-project.js";

/** The isolated-vm line npm must pick for this Node, by the engines of 5.0.4 (>=18), 6.2.0 (>=22) and 7.0.1 (>=24). */
const EXPECTED_LINE = NODE_MAJOR >= 24 ? "7.0.1" : NODE_MAJOR >= 22 ? "6.2.0" : "5.0.4";
const SDKS_FOR_EXAMPLES = NODE_MAJOR >= 22 ? ["ai", "openai"] : [];

describe("the packed package in a fresh project", { timeout: 600_000 }, () => {
  let work: string;
  let tarball: string;
  let project: UserProject;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "corral-pack-"));
    tarball = packCheckout(work);
    const extra = ["zod", "typescript", ...SDKS_FOR_EXAMPLES].map((name) => `${name}@${checkoutVersion(name)}`);
    project = installInFreshProject(tarball, extra);
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
    if (project !== undefined) rmSync(project.dir, { recursive: true, force: true });
  });

  it("holds what a user needs and no more", () => {
    const root = join(project.dir, "node_modules", "corral");
    const files = listFiles(root).map((file) => relative(root, file));
    const unwanted = files.filter((file) => /(^|\/)(test|fixtures|testing)\/|\.test\.|\.case\.|\.map$|testing-server|^dist\/plugins\//.test(file) && !file.includes("node_modules/"));
    assert.deepEqual(unwanted, []);
    for (const needed of ["LICENSE", "README.md", "SECURITY.md", "bin/corral.js", "dist/src/index.js", "dist/src/index.d.ts", "dist/sandbox/guest/runtime.bundle.js", "plugins/text-stats/index.ts"]) {
      assert.ok(files.includes(needed), `the package lacks ${needed}`);
    }
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: unknown; devDependencies?: unknown; optionalDependencies: Record<string, string> };
    assert.equal(manifest.scripts, undefined, "no script of the checkout's ships: they need files the package does not have");
    assert.equal(manifest.devDependencies, undefined);
    assert.equal(manifest.optionalDependencies["isolated-vm"], "5.0.4 || 6.2.0 || 7.0.1");
    const packed = statSync(tarball).size;
    console.log(`packed: ${files.length} files, ${(packed / 1024).toFixed(0)} KiB packed`);
  });

  const compiles = NODE_MAJOR >= 22 ? "and compiles nothing for it" : "(compiled there: the checkout's build of it is used)";
  it(`installs the isolated-vm line for Node ${NODE_MAJOR} (${EXPECTED_LINE}) ${compiles}`, () => {
    assert.equal(project.isolatedVmVersion, EXPECTED_LINE);
    const others = readdirSync(join(project.dir, "node_modules")).filter((name) => name.startsWith("isolated-vm") && name !== "isolated-vm");
    assert.deepEqual(others, [], "one line is installed, under its own name");
    if (NODE_MAJOR >= 22) {
      assert.match(project.rebuildOutput, /node-gyp-build/, "isolated-vm's install script ran");
      assert.doesNotMatch(project.rebuildOutput, /gyp info spawn|make: Entering|CXX\(target\)/, "isolated-vm's install script compiled");
      assert.equal(existsSync(join(project.dir, "node_modules", "isolated-vm", "build")), false, "a build folder means it compiled");
    }
  });

  for (const example of docExamples(join(CHECKOUT, "README.md"))) {
    const skip = example.needsNode22 && NODE_MAJOR < 22 ? `the "${example.name}" example's SDK needs Node 22 or later` : false;
    it(`runs the README's "${example.name}" example as written`, { skip }, () => {
      const file = join(project.dir, `${example.name}.mjs`);
      writeFileSync(file, example.code);
      const run = spawnSync(process.execPath, [file], { cwd: project.dir, encoding: "utf8", timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr);
      for (const line of example.expected) assert.ok(run.stdout.includes(line), `expected "${line}" in:\n${run.stdout}`);
    });
  }

  it("runs the CLI from node_modules/.bin", () => {
    const bin = join(project.dir, "node_modules", ".bin", "corral");
    const version = spawnSync(bin, ["--version"], { cwd: project.dir, encoding: "utf8" });
    assert.equal(version.status, 0, version.stderr);
    const run = spawnSync(bin, ["run", "text_stats", "--input", '{"text":"one two three"}', "--json"], { cwd: project.dir, encoding: "utf8", timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { ok: boolean; structured: { words: number }; source: string };
    assert.equal(result.structured.words, 3);
    assert.doesNotMatch(result.source, /node_modules/, "a bundled plugin's source id does not depend on where corral is installed");
  });

  it("type-checks a file that uses the public API under tsc --strict, skipLibCheck false", () => {
    writeFileSync(join(project.dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, noEmit: true }, include: ["uses-corral.ts"] }));
    writeFileSync(join(project.dir, "uses-corral.ts"), PUBLIC_API_USE);
    const tsc = spawnSync(process.execPath, [join(project.dir, "node_modules", "typescript", "bin", "tsc"), "-p", "."], { cwd: project.dir, encoding: "utf8" });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    writeFileSync(join(project.dir, "uses-corral.ts"), PUBLIC_API_USE.replace("({ sum: a + b })", '({ sum: "wrong" })'));
    const wrong = spawnSync(process.execPath, [join(project.dir, "node_modules", "typescript", "bin", "tsc"), "-p", "."], { cwd: project.dir, encoding: "utf8" });
    assert.notEqual(wrong.status, 0, "a run whose result breaks its output schema must not compile");
    assert.match(wrong.stdout, /uses-corral\.ts/);
  });
});

const PUBLIC_API_USE = `
import { bundledPluginsDir, createHost, defineTool, type LibraryTool, type LibraryVersion, type ToolResult } from "corral";
import { createMcpServer } from "corral/mcp";
import { aiTools } from "corral/ai";
import { openaiTools } from "corral/openai";
import { defineTool as defineInSdk } from "corral/sdk";
import { z } from "zod";

export const add = defineTool({
  name: "add", description: "Adds", effects: [],
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});
export const echo = defineInSdk({ name: "echo", description: "Echoes", effects: [], input: z.object({ text: z.string() }), run: ({ text }) => text });

const host = createHost({ workers: 1, ledger: { store: false }, effects: { agent: { read: "allow" } } });
await host.loadDirectory(bundledPluginsDir);
const result: ToolResult = await host.call("text_stats", { text: "a b" });
if (result.ok) console.log(result.output);
else console.log(result.error.kind);
const versions: LibraryVersion[] = await host.library.versions("text_stats");
const kept: LibraryTool[] = await host.library.tools({ agent: "someone" });
console.log(versions.length, kept.map((tool) => tool.current));
const server = createMcpServer(host);
void aiTools;
void openaiTools;
await server.close();
await host.close();
`;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]));
}
