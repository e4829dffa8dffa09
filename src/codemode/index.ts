/**
 * @module src/codemode
 * Code Mode: a model's script calls tools as typed async functions, inside
 * the sandbox; each of its calls is a full corral call.
 */
export { CodeMode, RUN_CODE, PROGRAM_SCRIPT_SOURCE, type ScriptCall } from "./code-mode.js";
export { CodeModeOptions, CODE_MODE_DEFAULTS, resolveCodeModeOptions, type ResolvedCodeModeOptions } from "./options.js";
export { codeModeDeclarations, toolMember, toolAccess, type DeclaredTool, type CodeModeDeclarations } from "./declarations.js";
