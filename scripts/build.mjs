// Builds corral: tsc emits dist/ with declarations, then esbuild bundles the
// guest runtime (with zod and the SDK) into one script for the isolates.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const started = Date.now();

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

console.error("corral build: bundling the guest runtime …");
await esbuild.build({
  entryPoints: [join(root, "sandbox/guest/runtime.ts")],
  outfile: join(root, "dist/sandbox/guest/runtime.bundle.js"),
  bundle: true,
  format: "cjs",
  platform: "neutral",
  target: "es2022",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  // The script's completion value is the runtime's API: the worker takes it
  // from `script.run` as a Reference, so nothing is put on the global object.
  banner: { js: "(function(){var module={exports:{}},exports=module.exports;" },
  footer: { js: "return module.exports.api;})();" },
});
console.error(`corral build: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
