/**
 * @module src/codemode
 * Code Mode: a model's script calls tools as typed async functions, inside
 * the sandbox; each of its calls is a full corral call.
 */
export { CodeMode } from "./code-mode.js";
export { RUN_CODE, PROGRAM_SCRIPT_SOURCE } from "./run-code-entry.js";
export type { ScriptCall } from "./script-tally.js";
export { CodeModeOptions, CODE_MODE_DEFAULTS, resolveCodeModeOptions, type ResolvedCodeModeOptions } from "./options.js";
export { codeModeDeclarations, toolMember, toolAccess, type DeclaredTool, type CodeModeDeclarations } from "./declarations.js";
