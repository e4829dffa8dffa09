// How a script for an isolate is bundled, shared by scripts/build.mjs (the
// guest runtime) and the bench (the raw baselines' tool script, the guest
// runtime it profiles): zod with its English locale only, and a CommonJS
// bundle wrapped so that the script's completion value is one of its exports.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** zod's locales namespace → English only (see sandbox/guest/zod-locales.ts). */
export const englishOnlyZod = {
  name: "english-only-zod",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(join("node_modules", "zod")) ? { path: join(ROOT, "sandbox/guest/zod-locales.ts") } : undefined,
    );
  },
};

/**
 * esbuild options (entry and output aside) for a minified script whose
 * completion value is `module.exports[exportName]`: the worker takes it from
 * `script.run` as a Reference, so nothing is put on the global object.
 */
export function isolateScriptOptions(exportName) {
  return {
    bundle: true,
    format: "cjs",
    platform: "neutral",
    // "neutral" reads no main fields; the web globals' packages (whatwg-url,
    // tr46, punycode, webidl-conversions) are found through "main".
    mainFields: ["module", "main"],
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
    banner: { js: "(function(){var module={exports:{}},exports=module.exports;" },
    footer: { js: `return module.exports.${exportName};})();` },
    plugins: [englishOnlyZod],
  };
}
