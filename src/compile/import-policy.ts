/**
 * @module src/compile/import-policy
 * The esbuild plugin that decides what a tool may import. Allowed: "corral"
 * and "zod" (left external; the guest runtime provides them), relative files
 * inside the tool's own folder, and, for a plugin folder, packages installed
 * in its own node_modules. Everything else is a compile error at the import:
 * Node built-ins, require(), dynamic import(), absolute paths, paths that
 * leave the folder (symlinks included), URLs and native addons.
 */
import { realpathSync } from "node:fs";
import { isBuiltin } from "node:module";
import { isAbsolute, relative, sep } from "node:path";
import type { Metafile, Plugin } from "esbuild";

/** Specifiers the guest runtime provides through its own `require`. */
export const PROVIDED_MODULES: ReadonlySet<string> = new Set(["corral", "corral/sdk", "zod", "zod/v4"]);

/** How a provided module may be imported: statically (or by a literal require(), which this plugin allows too). */
const PROVIDED_IMPORT_KINDS: ReadonlySet<string> = new Set(["import-statement", "require-call"]);

/**
 * Whether a build made without this plugin is one the plugin would have
 * allowed, unchanged: one input file, and every import a provided module
 * (left external), imported statically. An agent's tool usually is, and
 * skipping the plugin saves its round trips between esbuild's process and
 * this one (~1 ms each on a small VM).
 */
export function onlyProvidedImports(metafile: Metafile): boolean {
  const inputs = Object.values(metafile.inputs);
  return inputs.length === 1 && inputs.every((input) => input.imports.every((entry) => entry.external === true && PROVIDED_MODULES.has(entry.path) && PROVIDED_IMPORT_KINDS.has(entry.kind)));
}

const INNER_RESOLVE = Symbol("corral inner resolve");
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function isRelative(specifier: string): boolean {
  return specifier === "." || specifier === ".." || specifier.startsWith("./") || specifier.startsWith("../");
}

/**
 * @param root the tool's folder, or undefined for a tool given as source
 * text, which may import only the provided modules.
 */
export function importPolicy(root: string | undefined): Plugin {
  const realRoot = root === undefined ? undefined : realpathSync(root);
  return {
    name: "corral-import-policy",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === INNER_RESOLVE || args.kind === "entry-point") return undefined;
        const specifier = args.path;
        const deny = (text: string) => ({ errors: [{ text }] });
        if (PROVIDED_MODULES.has(specifier)) {
          if (args.kind === "dynamic-import") return deny(`import("${specifier}") is not allowed: use a static import`);
          return { path: specifier, external: true };
        }
        if (args.kind === "require-call" || args.kind === "require-resolve") {
          return deny(`require("${specifier}") is not allowed in a tool: use a static import of "corral", "zod" or a relative file`);
        }
        if (args.kind === "dynamic-import") {
          return deny(`dynamic import("${specifier}") is not allowed in a tool: use a static import`);
        }
        if (isBuiltin(specifier)) {
          return deny(`"${specifier}" is a Node built-in module; tools run in an isolate without Node APIs`);
        }
        if (URL_SCHEME.test(specifier)) return deny(`"${specifier}": tools cannot import from URLs`);
        if (isAbsolute(specifier)) return deny(`"${specifier}": tools cannot import absolute paths`);
        if (realRoot === undefined) {
          return deny(
            `"${specifier}": a tool given as source text is one file and may import only "corral" and "zod"`,
          );
        }
        const resolved = await build.resolve(specifier, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: INNER_RESOLVE,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external || resolved.namespace !== "file") {
          return deny(`"${specifier}" does not resolve to a file inside the tool's folder`);
        }
        let real: string;
        try {
          real = realpathSync(resolved.path);
        } catch {
          return deny(`"${specifier}" resolves to ${resolved.path}, which cannot be read`);
        }
        const allowedRoot = isRelative(specifier) ? realRoot : `${realRoot}${sep}node_modules`;
        if (!isInside(allowedRoot, real)) {
          return deny(
            isRelative(specifier)
              ? `"${specifier}" leaves the tool's folder; a tool may import only files inside its own folder`
              : `package "${specifier}" is not installed in the tool's own node_modules; only "corral", "zod" and packages installed there may be imported`,
          );
        }
        if (real.endsWith(".node")) return deny(`"${specifier}" is a native addon; tools may use pure-JS packages only`);
        return { path: real, sideEffects: resolved.sideEffects };
      });
    },
  };
}
