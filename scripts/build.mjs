// Builds corral: installs the shipped plugins' own dependencies where missing,
// tsc emits dist/ with declarations, then esbuild bundles the guest runtime
// (with zod and the SDK) into one script for the isolates, and corral.json's
// JSON Schema is written from its zod schema.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, relative } from "node:path";
import * as esbuild from "esbuild";
import { isolateScriptOptions } from "./isolate-script.mjs";
import { trustedEvents } from "./trusted-events.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const started = Date.now();

// A plugin with dependencies of its own (plugins/<name>/package.json plus a
// package-lock.json) needs its node_modules before tsc can type-check it and
// before the host can bundle it: the import policy lets a plugin import only
// packages in its own node_modules. npm does not install a nested folder's
// dependencies, so this does, from the lockfile and without install scripts
// (plugins must be pure JS). A folder that already has node_modules is left
// alone: this runs on every build, and a fresh clone is the case to cover.
function installPluginDependencies() {
  const pluginsDir = join(root, "plugins");
  if (!existsSync(pluginsDir)) return;
  for (const entry of readdirSync(pluginsDir, { withFileTypes: true })) {
    const dir = join(pluginsDir, entry.name);
    if (!entry.isDirectory() || !existsSync(join(dir, "package-lock.json")) || existsSync(join(dir, "node_modules"))) continue;
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    if (Object.keys(manifest.dependencies ?? {}).length === 0) continue;
    console.error(`corral build: installing the dependencies of plugins/${entry.name} (npm ci) …`);
    const args = ["ci", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund"];
    // Under `npm ci`/`npm run`, npm_execpath is the npm that started us: use the same one.
    const npmCli = process.env.npm_execpath;
    const [command, commandArgs] =
      npmCli !== undefined && /npm-cli\.js$/.test(npmCli) ? [process.execPath, [npmCli, ...args]] : ["npm", args];
    try {
      // npm's output goes to stderr, with the rest of the build's progress.
      execFileSync(command, commandArgs, { stdio: ["ignore", 2, 2], shell: process.platform === "win32" && command === "npm" });
    } catch {
      console.error(`corral build: installing the dependencies of plugins/${entry.name} failed (above); run \`npm ci --prefix plugins/${entry.name}\`.`);
      process.exit(1);
    }
  }
}

installPluginDependencies();

// dist/ is made anew: a compiled file whose source moved or was deleted
// (a stale test, say) must not linger and run.
rmSync(join(root, "dist"), { recursive: true, force: true });

console.error("corral build: type-checking and emitting dist/ …");
try {
  execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", join(root, "tsconfig.json")], {
    stdio: "inherit",
  });
} catch {
  // tsc still emitted JavaScript. CORRAL_BUILD_ALLOW_TYPE_ERRORS=1 lets several
  // people work on one tree without one's half-done file stopping the others.
  if (process.env.CORRAL_BUILD_ALLOW_TYPE_ERRORS !== "1") {
    console.error("corral build: the TypeScript compiler reported errors (above); fix them and run `npm run build`.");
    process.exit(1);
  }
  console.error("corral build: type errors above are allowed by CORRAL_BUILD_ALLOW_TYPE_ERRORS=1; continuing");
}

// The same options bundle the bench's raw tool script (scripts/isolate-script.mjs).
console.error("corral build: bundling the guest runtime …");
await esbuild.build({
  ...isolateScriptOptions("api"),
  entryPoints: [join(root, "sandbox/guest/runtime.ts")],
  outfile: join(root, "dist/sandbox/guest/runtime.bundle.js"),
});
// whatwg-url, run in a tool's context only when it first uses URL (see sandbox/guest/web/url-bundle.ts).
const tr46AsciiFastPath = {
  name: "tr46-ascii-fast-path",
  setup(build) {
    build.onResolve({ filter: /^tr46$/ }, (args) =>
      args.importer.includes(join("node_modules", "whatwg-url")) ? { path: join(root, "sandbox/guest/web/tr46-ascii.ts") } : undefined,
    );
  },
};
await esbuild.build({
  ...isolateScriptOptions("urlModule"),
  plugins: [...isolateScriptOptions("urlModule").plugins, tr46AsciiFastPath],
  inject: [join(root, "sandbox/guest/web/url-inject.ts")],
  entryPoints: [join(root, "sandbox/guest/web/url-bundle.ts")],
  outfile: join(root, "dist/sandbox/guest/web-url.bundle.js"),
});
// web-streams-polyfill, run in a tool's context only when it first uses a stream (see sandbox/guest/web/streams-bundle.ts).
await esbuild.build({
  ...isolateScriptOptions("streamsModule"),
  entryPoints: [join(root, "sandbox/guest/web/streams-bundle.ts")],
  outfile: join(root, "dist/sandbox/guest/web-streams.bundle.js"),
});

// The web globals built on first use, run in a tool's context only then (see sandbox/guest/web/lazy-bundle.ts).
// Its imports of the modules whose state or identity must be the runtime's resolve to the runtime's own,
// handed to the script's function as `__corral_imports` (sandbox/guest/web/lazy.ts, SHARED).
const RUNTIME_SHARED = [
  "sandbox/guest/intrinsics",
  "sandbox/guest/web/dom-exception",
  "sandbox/guest/web/text-codec",
  "sandbox/guest/web/encodings",
  "sandbox/guest/web/streams",
  "sandbox/guest/web/bytes",
  "sandbox/guest/web/base64",
];
const runtimeShared = {
  name: "runtime-shared",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const key = relative(root, join(args.resolveDir, args.path)).replace(/\\/g, "/").replace(/\.(js|ts)$/, "");
      return RUNTIME_SHARED.includes(key) ? { path: key, namespace: "corral-runtime" } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "corral-runtime" }, (args) => ({
      contents: `module.exports = __corral_imports[${JSON.stringify(args.path)}];`,
      loader: "js",
    }));
  },
};
await esbuild.build({
  ...isolateScriptOptions("lazyModule"),
  // The script's completion value is a function of the shared modules, called by the runtime.
  banner: { js: "(function(__corral_imports){var Object=__corral_imports.Object;var module={exports:{}},exports=module.exports;" },
  footer: { js: "return module.exports.lazyModule;})" },
  plugins: [...isolateScriptOptions("lazyModule").plugins, runtimeShared, trustedEvents],
  entryPoints: [join(root, "sandbox/guest/web/lazy-bundle.ts")],
  outfile: join(root, "dist/sandbox/guest/web-lazy.bundle.js"),
});

// corral.json's JSON Schema, made from the one zod schema (src/config/schema.ts), at the
// package root so a config can say "$schema": "./node_modules/corral/corral.schema.json".
const { configJsonSchema } = await import(pathToFileURL(join(root, "dist/src/config/schema.js")).href);
writeFileSync(join(root, "corral.schema.json"), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);

// The dashboard's page is plain files, shipped as they are (no build step on the user's side).
cpSync(join(root, "src/dashboard/assets"), join(root, "dist/src/dashboard/assets"), { recursive: true });

console.error(`corral build: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
