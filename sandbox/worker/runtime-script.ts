/**
 * @module sandbox/worker/runtime-script
 * Compiles the guest's scripts into an isolate: the runtime (zod + SDK +
 * runtime, one script, run in every context) and the URL script
 * (whatwg-url, run in a context only when its tool first uses URL), and
 * likewise the streams script (web-streams-polyfill) and the script of the
 * web globals built on first use (sandbox/guest/web/lazy-bundle.ts). The V8 code cache is produced here, by this worker, from our own bundles, and
 * never accepted from anyone else: cached data is machine-level input to V8
 * (isolated-vm #516, CVE-2022-39266).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type IsolatedVM from "isolated-vm-types";

// isolated-vm sets these on the returned Script; its typings leave them off.
type CompiledScript = IsolatedVM.Script & { cachedData?: IsolatedVM.ExternalCopy<ArrayBuffer>; cachedDataRejected?: boolean };

/** A compiler of one bundle that keeps the code cache of its first compile. */
function cachedCompiler(bundle: string, filename: string): (isolate: IsolatedVM.Isolate) => IsolatedVM.Script {
  let code: string | undefined;
  let cachedData: IsolatedVM.ExternalCopy<ArrayBuffer> | undefined;
  return (isolate) => {
    code ??= readFileSync(fileURLToPath(new URL(bundle, import.meta.url)), "utf8");
    if (cachedData !== undefined) {
      const script: CompiledScript = isolate.compileScriptSync(code, { filename, cachedData });
      if (script.cachedDataRejected === true) cachedData = undefined;
      return script;
    }
    const script: CompiledScript = isolate.compileScriptSync(code, { filename, produceCachedData: true });
    if (script.cachedData !== undefined) cachedData = script.cachedData;
    return script;
  };
}

export const compileRuntime = cachedCompiler("../guest/runtime.bundle.js", "corral:runtime");
export const compileUrlScript = cachedCompiler("../guest/web-url.bundle.js", "corral:url");
export const compileStreamsScript = cachedCompiler("../guest/web-streams.bundle.js", "corral:streams");
export const compileLazyScript = cachedCompiler("../guest/web-lazy.bundle.js", "corral:web");
