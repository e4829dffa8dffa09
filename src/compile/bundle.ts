/**
 * @module src/compile/bundle
 * One esbuild run: a file or source text in, one CommonJS bundle out (for the
 * guest runtime's module wrapper), or diagnostics with file:line:col. No
 * caching here; see cache.ts.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as esbuild from "esbuild";
import type { Diagnostic } from "../result.js";
import { importPolicy, onlyProvidedImports, PROVIDED_MODULES } from "./import-policy.js";

export type BundleInput =
  | { kind: "text"; code: string; /** Shown in diagnostics, e.g. "agent:demo". */ sourceName: string }
  | { kind: "file"; entry: string; /** The folder the tool may import from. */ root: string };

export type BundleOutput =
  | { ok: true; code: string; hash: string; /** Absolute paths of the files read, for cache checks. */ inputs: string[] }
  | { ok: false; diagnostics: Diagnostic[] };

export function sha256(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

function toDiagnostic(message: esbuild.Message): Diagnostic {
  const diagnostic: Diagnostic = { message: message.text };
  const location = message.location;
  if (location) {
    diagnostic.file = location.file;
    diagnostic.line = location.line;
    diagnostic.column = location.column + 1;
    diagnostic.lineText = location.lineText;
  }
  return diagnostic;
}

export async function bundle(input: BundleInput): Promise<BundleOutput> {
  const common = {
    bundle: true,
    write: false,
    format: "cjs",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["import", "default"],
    logLevel: "silent",
    legalComments: "none",
    charset: "utf8",
    metafile: true,
    // Keep every import, even one only used as a type: an unused import of a
    // forbidden module is still refused, as the tool's author would expect.
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    // Packages often test process.env.NODE_ENV; there is no `process` inside.
    define: { "process.env.NODE_ENV": '"production"' },
  } satisfies esbuild.BuildOptions;
  let built: Built;
  if (input.kind === "text") {
    const stdin: esbuild.StdinOptions = { contents: input.code, loader: "ts", sourcefile: input.sourceName };
    // First without the import policy, esbuild alone (the provided modules
    // external); its result stands only when it is one the policy would have
    // allowed as is. Otherwise the policy's build decides, with its errors.
    const plain = await build({ ...common, stdin, external: [...PROVIDED_MODULES] });
    built = plain.ok && onlyProvidedImports(plain.result.metafile) ? plain : await build({ ...common, stdin, plugins: [importPolicy(undefined)] });
  } else {
    built = await build({ ...common, entryPoints: [input.entry], absWorkingDir: input.root, plugins: [importPolicy(input.root)] });
  }
  if (!built.ok) return built;
  const result = built.result;
  const file = result.outputFiles[0];
  if (file === undefined) return { ok: false, diagnostics: [{ message: "esbuild produced no output" }] };
  const code = file.text;
  const inputs =
    input.kind === "text"
      ? []
      : Object.keys(result.metafile.inputs).map((path) => (path.startsWith("/") ? path : `${input.root}/${path}`));
  return { ok: true, code, hash: sha256(code), inputs };
}


type Built = { ok: true; result: esbuild.BuildResult<{ write: false; metafile: true }> } | { ok: false; diagnostics: Diagnostic[] };

async function build(options: esbuild.BuildOptions & { write: false; metafile: true }): Promise<Built> {
  try {
    return { ok: true, result: await esbuild.build(options) };
  } catch (error) {
    const failure = error as Partial<esbuild.BuildFailure>;
    if (Array.isArray(failure.errors) && failure.errors.length > 0) {
      return { ok: false, diagnostics: failure.errors.map(toDiagnostic) };
    }
    return { ok: false, diagnostics: [{ message: `esbuild failed: ${(error as Error).message}` }] };
  }
}

export function hashFile(path: string): string | undefined {
  try {
    return sha256(readFileSync(path));
  } catch {
    return undefined;
  }
}
