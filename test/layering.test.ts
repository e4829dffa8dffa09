/**
 * The layers of corral, checked on the sources: what each side of the
 * boundary may import. The host never loads isolated-vm and reaches into
 * `sandbox/` only for what both sides share; the guest runtime and the SDK
 * run inside an isolate and import nothing of the host or the worker. And
 * no source file grows past MAX_LINES but those listed, by name.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function sources(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") sources(path, found);
    } else if (/\.ts$/.test(entry.name) && !/\.(test|case|property\.test)\.ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

/** Every module a file imports (static, dynamic and `require`), as a path from the root for relative ones. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const specifiers = [...text.matchAll(/(?:^|\s)(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)|require\(\s*"([^"]+)"\s*\)/gm)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
  return specifiers.map((spec) => (spec.startsWith(".") ? relative(ROOT, resolve(join(ROOT, dirname(file)), spec)).replace(/\.js$/, ".ts") : spec));
}

type Rule = { files: string; allowed: (target: string) => boolean; says: string };

const isolatedVm = (target: string) => /^isolated-vm/.test(target);

const RULES: Rule[] = [
  {
    files: "src",
    allowed: (t) => !isolatedVm(t) && (!t.startsWith("sandbox/") || t.startsWith("sandbox/shared/") || t.startsWith("sandbox/sdk/")),
    says: "the host imports from sandbox/ only shared/ and sdk/, and never isolated-vm",
  },
  { files: "sandbox/worker", allowed: (t) => !t.startsWith("src/") && !t.startsWith("sandbox/guest/"), says: "the worker imports nothing of the host or the guest's code" },
  { files: "sandbox/guest", allowed: (t) => !t.startsWith("src/") && !t.startsWith("sandbox/worker/") && !isolatedVm(t), says: "the guest imports nothing of the host or the worker" },
  { files: "sandbox/shared", allowed: (t) => !t.startsWith("src/") && !t.startsWith("sandbox/worker/") && !t.startsWith("sandbox/guest/") && !isolatedVm(t), says: "shared code imports nothing of either side" },
  { files: "sandbox/sdk", allowed: (t) => t.startsWith("sandbox/sdk/") || t === "zod" || t.startsWith("zod/"), says: "the SDK imports only itself and zod" },
];

describe("layering", () => {
  for (const rule of RULES) {
    it(`${rule.files}: ${rule.says}`, () => {
      const files = sources(rule.files);
      assert.ok(files.length > 0, `no sources under ${rule.files}`);
      const broken = files.flatMap((file) => importsOf(file).filter((target) => !rule.allowed(target)).map((target) => `${file} imports ${target}`));
      assert.deepEqual(broken, []);
    });
  }

  it("the checker sees imports: it finds the host's import of the session messages and the worker's of isolated-vm", () => {
    assert.ok(sources("src").some((file) => importsOf(file).includes("sandbox/shared/session-messages.ts")));
    assert.ok(sources("sandbox/worker").some((file) => importsOf(file).some(isolatedVm)));
  });
});

/** Most files stay under about 300 lines (shared/STYLE.md): one concern a file. */
const MAX_LINES = 300;

/** Every source file (TypeScript or JavaScript) under `dir` but tests and shared test suites. */
function codeFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") codeFiles(path, found);
    } else if (/\.(ts|js|mjs|cjs)$/.test(entry.name) && !/\.(test|case)\./.test(entry.name) && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

function linesOf(file: string): number {
  const text = readFileSync(join(ROOT, file), "utf8");
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

describe("file size", () => {
  const files = ["src", "sandbox", "plugins", "scripts"].flatMap((dir) => codeFiles(dir));

  it(`no source file is over ${MAX_LINES} lines`, () => {
    assert.ok(files.length > 0, "no sources found");
    const over = files.filter((file) => linesOf(file) > MAX_LINES).map((file) => `${file}: ${linesOf(file)} lines`);
    assert.deepEqual(over, []);
  });
});
