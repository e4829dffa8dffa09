/**
 * @module sandbox/worker/runtime-script
 * Compiles the guest runtime (zod + SDK + runtime, one script) into an
 * isolate. The V8 code cache is produced here, by this worker, from our own
 * bundle, and never accepted from anyone else: cached data is machine-level
 * input to V8 (isolated-vm #516, CVE-2022-39266).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type IsolatedVM from "isolated-vm-types";

const RUNTIME_PATH = fileURLToPath(new URL("../guest/runtime.bundle.js", import.meta.url));
const RUNTIME_FILENAME = "corral:runtime";

const runtimeCode = readFileSync(RUNTIME_PATH, "utf8");
let cachedData: IsolatedVM.ExternalCopy<ArrayBuffer> | undefined;

// isolated-vm sets these on the returned Script; its typings leave them off.
type CompiledScript = IsolatedVM.Script & { cachedData?: IsolatedVM.ExternalCopy<ArrayBuffer>; cachedDataRejected?: boolean };

export function compileRuntime(isolate: IsolatedVM.Isolate): IsolatedVM.Script {
  if (cachedData !== undefined) {
    const script: CompiledScript = isolate.compileScriptSync(runtimeCode, { filename: RUNTIME_FILENAME, cachedData });
    if (script.cachedDataRejected === true) cachedData = undefined;
    return script;
  }
  const script: CompiledScript = isolate.compileScriptSync(runtimeCode, { filename: RUNTIME_FILENAME, produceCachedData: true });
  if (script.cachedData !== undefined) cachedData = script.cachedData;
  return script;
}

