import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, withHost } from "../../test/helpers/host.js";
import type { Diagnostic } from "../result.js";
import { BundleCache } from "./cache.js";

/**
 * A temporary tree:
 *
 * ```
 * <tmp>/outside.ts                      a file outside the plugin folder
 * <tmp>/node_modules/outer/             a package above the plugin folder
 * <tmp>/plugin/<entry>.ts               one entry per test
 * <tmp>/plugin/lib/helper.ts            a file inside the folder
 * <tmp>/plugin/link-out.ts -> ../outside.ts   a symlink that leaves the folder
 * <tmp>/plugin/node_modules/tiny/       the plugin's own package
 * ```
 */
function makeTree(root: string): { plugin: string } {
  const plugin = join(root, "plugin");
  mkdirSync(join(plugin, "lib"), { recursive: true });
  mkdirSync(join(plugin, "node_modules", "tiny"), { recursive: true });
  mkdirSync(join(root, "node_modules", "outer"), { recursive: true });
  writeFileSync(join(root, "outside.ts"), "export const secret = 'outside';\n");
  writeFileSync(join(root, "node_modules", "outer", "package.json"), JSON.stringify({ name: "outer", version: "1.0.0", main: "index.js" }));
  writeFileSync(join(root, "node_modules", "outer", "index.js"), "module.exports = { outer: true };\n");
  writeFileSync(join(plugin, "lib", "helper.ts"), "export const helper = (s: string) => `helped ${s}`;\n");
  writeFileSync(join(plugin, "node_modules", "tiny", "package.json"), JSON.stringify({ name: "tiny", version: "1.0.0", main: "index.js" }));
  writeFileSync(join(plugin, "node_modules", "tiny", "index.js"), "module.exports = { shout: (s) => s.toUpperCase() + '!' };\n");
  symlinkSync(join("..", "outside.ts"), join(plugin, "link-out.ts"));
  return { plugin };
}

/** A tool module whose third line is `line`. */
function moduleWith(line: string, run = "return 'ok';"): string {
  return `import { defineTool } from "corral";
import { z } from "zod";
${line}
export default defineTool({
  name: "policy_probe",
  description: "import policy probe",
  input: z.object({}),
  effects: [],
  run() { ${run} },
});
`;
}

describe("import policy (through BundleCache)", { timeout: 60_000 }, () => {
  const dir = tempDir("corral-policy-");
  let plugin = "";
  let entryCount = 0;
  before(() => {
    plugin = makeTree(dir.path).plugin;
  });
  after(() => dir.remove());

  async function compileFile(line: string): Promise<{ ok: true } | { ok: false; diagnostics: Diagnostic[] }> {
    const entry = join(plugin, `entry-${++entryCount}.ts`);
    writeFileSync(entry, moduleWith(line));
    const result = await new BundleCache(false).compile({ kind: "file", entry, root: plugin });
    return result.ok ? { ok: true } : { ok: false, diagnostics: result.diagnostics };
  }

  async function compileText(line: string): Promise<{ ok: true } | { ok: false; diagnostics: Diagnostic[] }> {
    const result = await new BundleCache(false).compile({ kind: "text", code: moduleWith(line), sourceName: "agent:policy" });
    return result.ok ? { ok: true } : { ok: false, diagnostics: result.diagnostics };
  }

  /** The import is refused with a diagnostic at its own line and column, naming it. */
  async function assertRefused(line: string, specifier: string, reason: RegExp, as: "file" | "text" = "file"): Promise<void> {
    const result = await (as === "file" ? compileFile(line) : compileText(line));
    assert.equal(result.ok, false, `"${line}" was allowed`);
    assert.ok(!result.ok);
    const diagnostic = result.diagnostics[0];
    assert.ok(diagnostic !== undefined);
    assert.ok(diagnostic.message.includes(specifier), `the message names the import: ${diagnostic.message}`);
    assert.match(diagnostic.message, reason);
    assert.match(diagnostic.file ?? "", as === "file" ? /entry-\d+\.ts$/ : /^agent:policy$/);
    assert.equal(diagnostic.line, 3);
    assert.equal(diagnostic.column, line.indexOf(`"${specifier}`) + 1, `column of ${specifier} in: ${line}`);
    assert.equal(diagnostic.lineText, line);
  }

  it('refuses "node:fs"', async () => {
    await assertRefused('import { readFileSync } from "node:fs";', "node:fs", /Node built-in/);
  });

  it('refuses the bare built-in name "fs"', async () => {
    await assertRefused('import fs from "fs";', "fs", /Node built-in/);
  });

  it('refuses "child_process"', async () => {
    await assertRefused('import { execSync } from "child_process";', "child_process", /Node built-in/);
  });

  it("refuses require() of anything, even a relative file inside the folder", async () => {
    await assertRefused('const helper = require("./lib/helper.ts");', "./lib/helper.ts", /require\(.*\) is not allowed/);
    await assertRefused('const x = require("x");', "x", /require\(.*\) is not allowed/);
  });

  it("refuses dynamic import(), even of a file inside the folder or of zod", async () => {
    await assertRefused('const lazy = import("./lib/helper.ts");', "./lib/helper.ts", /dynamic import/);
    await assertRefused('const lazy = import("x");', "x", /dynamic import/);
    await assertRefused('const lazy = import("zod");', "zod", /static import/);
  });

  it("refuses absolute paths", async () => {
    await assertRefused(`import { secret } from "${join(dir.path, "outside.ts")}";`, join(dir.path, "outside.ts"), /absolute paths/);
    await assertRefused('import passwd from "/etc/passwd";', "/etc/passwd", /absolute paths/);
  });

  it('refuses "../outside.ts", which leaves the plugin folder', async () => {
    await assertRefused('import { secret } from "../outside.ts";', "../outside.ts", /leaves the tool's folder/);
  });

  it("refuses a symlink inside the folder that points outside it", async () => {
    await assertRefused('import { secret } from "./link-out.ts";', "./link-out.ts", /leaves the tool's folder/);
  });

  it("refuses URLs", async () => {
    await assertRefused('import x from "https://example.com/x.js";', "https://example.com/x.js", /URLs/);
    await assertRefused('import y from "data:text/javascript,export default 1";', "data:text/javascript,export default 1", /URLs/);
  });

  it("refuses a package that is installed only above the plugin folder", async () => {
    await assertRefused('import outer from "outer";', "outer", /not installed in the tool's own node_modules/);
  });

  it("refuses a package that is installed nowhere", async () => {
    await assertRefused('import leftPad from "left-pad";', "left-pad", /Could not resolve/);
  });

  it("allows relative files inside the folder and packages in the plugin's own node_modules", async () => {
    assert.deepEqual(await compileFile('import { helper } from "./lib/helper.ts";'), { ok: true });
    assert.deepEqual(await compileFile('import tiny from "tiny";'), { ok: true });
  });

  it("reports a syntax error with its line and column", async () => {
    const result = await compileFile("const broken = ;");
    assert.ok(!result.ok);
    const diagnostic = result.diagnostics[0];
    assert.equal(diagnostic?.line, 3);
    assert.equal(diagnostic?.column, "const broken = ".length + 1);
    assert.match(diagnostic?.message ?? "", /Unexpected/);
  });

  it("refuses a relative import in source text (an agent's tool is one file)", async () => {
    const result = await new BundleCache(false).compile({ kind: "text", code: moduleWith('import { helper } from "./lib/helper.ts";'), sourceName: "agent:policy" });
    assert.ok(!result.ok);
    const diagnostic = result.diagnostics[0];
    assert.equal(diagnostic?.file, "agent:policy");
    assert.equal(diagnostic?.line, 3);
    assert.match(diagnostic?.message ?? "", /source text is one file/);
  });

  it("source text: esbuild alone builds it only when the policy would allow it as is; every refusal keeps its place", async () => {
    // Without the policy's plugin, esbuild would bundle a data: URL and leave import("zod") to run.
    await assertRefused('import y from "data:text/javascript,export default 1";', "data:text/javascript,export default 1", /URLs/, "text");
    await assertRefused('const lazy = import("zod");', "zod", /static import/, "text");
    await assertRefused('const lazy = import("corral");', "corral", /static import/, "text");
    await assertRefused('import { core } from "zod/v4/core";', "zod/v4/core", /source text is one file/, "text");
    await assertRefused('import { readFileSync } from "node:fs";', "node:fs", /Node built-in/, "text");
    await assertRefused('const x = require("x");', "x", /require\(.*\) is not allowed/, "text");
    for (const line of ['import * as sdk from "corral/sdk";', 'import { z as z4 } from "zod/v4";', 'const { z: z2 } = require("zod");']) {
      assert.deepEqual(await compileText(line), { ok: true }, line);
    }
  });

  it("refuses a package import in source text, even one installed next to corral", async () => {
    const result = await new BundleCache(false).compile({ kind: "text", code: moduleWith('import pino from "pino";'), sourceName: "agent:policy" });
    assert.ok(!result.ok);
    assert.match(result.diagnostics[0]?.message ?? "", /"pino".*source text is one file/);
  });
});

describe("import policy (through host.load)", { timeout: 60_000 }, () => {
  const dir = tempDir("corral-policy-host-");
  let plugin = "";
  before(() => {
    plugin = makeTree(dir.path).plugin;
  });
  after(() => dir.remove());

  it("answers compile_error with file:line:col for every forbidden import, and loads nothing", async () => {
    const forbidden = [
      'import { readFileSync } from "node:fs";',
      'import fs from "fs";',
      'import cp from "child_process";',
      'const x = require("x");',
      'const y = import("x");',
      'import passwd from "/etc/passwd";',
      'import { secret } from "../outside.ts";',
      'import { secret } from "./link-out.ts";',
      'import z2 from "https://example.com/zod.js";',
      'import outer from "outer";',
      'import leftPad from "left-pad";',
    ];
    await withHost(async (host) => {
      for (const [index, line] of forbidden.entries()) {
        const entry = join(plugin, `forbidden-${index}.ts`);
        writeFileSync(entry, moduleWith(line));
        const loaded = await host.load({ path: entry });
        assert.equal(loaded.ok, false, line);
        assert.ok(!loaded.ok);
        assert.equal(loaded.error.kind, "compile_error");
        const column = line.indexOf('"') + 1;
        assert.ok(
          loaded.error.message.startsWith(`forbidden-${index}.ts:3:${column}: `),
          `message for ${line}: ${loaded.error.message}`,
        );
        assert.equal(loaded.error.diagnostics?.[0]?.line, 3);
      }
      assert.deepEqual(host.tools().filter((tool) => tool.source !== "host:corral"), [], "no tool of a refused module is in the catalog");
    });
  });

  it("loads and runs a tool that uses a package from its own node_modules and a file from its folder", async () => {
    const entry = join(plugin, "uses-tiny.ts");
    writeFileSync(
      entry,
      moduleWith('import tiny from "tiny";\nimport { helper } from "./lib/helper.ts";', "return tiny.shout(helper('x'));").replace(
        "policy_probe",
        "uses_tiny",
      ),
    );
    await withHost(async (host) => {
      const loaded = await host.load({ path: entry });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("uses_tiny", {});
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.output, "HELPED X!");
    });
  });

  it("answers compile_error with the line and column of a syntax error", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:syntax", code: moduleWith("const broken = ;") });
      assert.ok(!loaded.ok);
      assert.equal(loaded.error.kind, "compile_error");
      assert.match(loaded.error.message, /^agent:syntax:3:16: /);
    });
  });

  it("answers compile_error for source text that imports a relative file", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:relative", code: moduleWith('import { helper } from "./lib/helper.ts";') });
      assert.ok(!loaded.ok);
      assert.equal(loaded.error.kind, "compile_error");
      assert.match(loaded.error.message, /^agent:relative:3:24: .*"\.\/lib\/helper\.ts"/);
    });
  });
});
