/**
 * @module src/codemode/run-code-entry
 * The built-in `run_code` as the catalog holds it: its name, the source of
 * a script no caller named, its description's opening and its catalog
 * entry (exposure model_only: a script cannot call it). What it does when
 * called is CodeMode's (code-mode.ts), handed in as `prepare`.
 */
import { BUILTIN_SOURCE } from "../builtins/index.js";
import { sha256 } from "../compile/bundle.js";
import type { CatalogEntry } from "../registry/index.js";

export const RUN_CODE = "run_code";

/** The source of scripts whose call names no caller (the embedding program's own host.call). */
export const PROGRAM_SCRIPT_SOURCE = "code:program";

export const RUN_CODE_INTRO = [
  "Runs a script that calls tools as async functions, so one step can chain, combine or filter many tool calls and hand back only what is needed.",
  "`code` is the body of an async function in JavaScript or TypeScript: `await tools.<name>(input)`, then `return` the answer (plain data); console.log lines come back too.",
  "Available in the script:",
].join(" ");

type Prepare = Extract<CatalogEntry["runner"], { kind: "codemode" }>["prepare"];

/** The catalog entry of `run_code`; `prepare` turns a call's input into the script's own entry. */
export function runCodeEntry(prepare: Prepare): CatalogEntry {
  return {
    source: BUILTIN_SOURCE,
    version: sha256(`corral builtin ${RUN_CODE}`),
    manifest: {
      name: RUN_CODE,
      description: RUN_CODE_INTRO,
      inputSchema: {
        type: "object",
        properties: { code: { type: "string", description: "the body of an async function (JavaScript or TypeScript) that awaits tools.<name>(input) and returns the answer" } },
        required: ["code"],
      },
      effects: [],
      exposure: "model_only",
      limits: {},
    },
    runner: { kind: "codemode", prepare },
  };
}
