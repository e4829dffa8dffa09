/**
 * @module src/codemode/options
 * `createHost({ codeMode: { ... } })`: one zod schema, strict, the defaults
 * in one constant beside it. Present (even `{}`) turns Code Mode on.
 */
import { z } from "zod";

export const CODE_MODE_DEFAULTS = {
  /** A script's own time limit, its nested calls included (the gate's waits are not). @default 10000 */
  timeoutMs: 10_000,
  /** The memory limit of the script's isolate (each nested call has its tool's own). @default 64 */
  memoryMb: 64,
  /** Tool calls one script may make; past it a call rejects with kind `busy`. @default 100 */
  maxCalls: 100,
  /** Tool calls of one script waiting at once; past it a call rejects with kind `busy`. @default 8 */
  maxInFlight: 8,
  /** The declarations in run_code's description stay under this many characters. @default 8000 */
  maxDeclarationChars: 8_000,
  /** The longest script run_code accepts. @default 64 KiB */
  maxCodeChars: 64 * 1024,
} as const;

export const CodeModeOptions = z.strictObject({
  timeoutMs: z.number().int().positive().optional(),
  memoryMb: z.number().int().min(8).optional(),
  maxCalls: z.number().int().min(1).max(100_000).optional(),
  maxInFlight: z.number().int().min(1).max(1_000).optional(),
  maxDeclarationChars: z.number().int().min(1_000).optional(),
  maxCodeChars: z.number().int().min(100).max(1024 * 1024).optional(),
});
export type CodeModeOptions = z.input<typeof CodeModeOptions>;
export type ResolvedCodeModeOptions = { -readonly [K in keyof typeof CODE_MODE_DEFAULTS]: number };

export function resolveCodeModeOptions(options: z.infer<typeof CodeModeOptions>): ResolvedCodeModeOptions {
  return { ...CODE_MODE_DEFAULTS, ...options };
}
