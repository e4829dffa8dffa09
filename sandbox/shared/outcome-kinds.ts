/**
 * @module sandbox/shared/outcome-kinds
 * The one outcome vocabulary. Every answer corral gives (a call's ToolResult,
 * a worker's reply, a load's failure) names its kind from this list, and one
 * module, sandbox/shared/classify.ts, decides the kind from evidence.
 */
import { z } from "zod";

export const OUTCOME_KINDS = [
  "ok",
  "tool_error",
  "invalid_input",
  "compile_error",
  "timeout",
  "memory",
  "crash",
  "blocked",
  "quarantined",
  "unknown_tool",
  "not_implemented",
  "output_too_large",
  "cancelled",
  "busy",
] as const;
export const OutcomeKind = z.enum(OUTCOME_KINDS);
export type OutcomeKind = z.infer<typeof OutcomeKind>;

/** Outcomes that count as strikes against the tool's source. */
export const STRIKE_KINDS: ReadonlySet<OutcomeKind> = new Set(["timeout", "memory", "crash"]);
