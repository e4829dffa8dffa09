/**
 * @module src/codemode/script-module
 * A Code Mode script (the body of an async function, JavaScript or
 * TypeScript) as the module its isolate loads: types stripped by esbuild,
 * the body wrapped in a function that receives `tools`, `search` and
 * `describe` from the guest runtime (sandbox/guest/codemode.ts). The body
 * sits on a line of its own after the wrapper's first line, so its line
 * numbers in diagnostics are its own.
 */
import * as esbuild from "esbuild";
import type { BundleRef } from "../../sandbox/shared/task-parts.js";
import { sha256 } from "../compile/bundle.js";
import type { Diagnostic } from "../result.js";

const HEAD = 'module.exports = require("corral:codemode").script(async function (tools, search, describe) {';
const TAIL = "});";

export type ScriptModule = { ok: true; bundle: BundleRef } | { ok: false; message: string; diagnostics: Diagnostic[] };

export async function scriptModule(code: string, source: string): Promise<ScriptModule> {
  let compiled: esbuild.TransformResult;
  try {
    compiled = await esbuild.transform(`${HEAD}\n${code}\n${TAIL}`, { loader: "ts", format: "cjs", target: "es2022", sourcefile: "script.ts", logLevel: "silent" });
  } catch (error) {
    const messages = (error as { errors?: esbuild.Message[] }).errors ?? [];
    const diagnostics = messages.slice(0, 10).map((message): Diagnostic => {
      const diagnostic: Diagnostic = { message: message.text };
      if (message.location !== null) {
        diagnostic.line = Math.max(1, message.location.line - 1);
        diagnostic.column = message.location.column + 1;
        diagnostic.lineText = message.location.lineText;
      }
      return diagnostic;
    });
    const shown = diagnostics.map((d) => (d.line === undefined ? d.message : `line ${d.line}:${d.column}: ${d.message}`)).join("; ");
    return { ok: false, message: `the script does not compile: ${shown || (error as Error).message}`, diagnostics };
  }
  return { ok: true, bundle: { hash: sha256(compiled.code), filename: source, code: compiled.code } };
}
