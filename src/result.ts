/**
 * @module src/result
 * ToolResult: what every call answers, success or failure, as a zod-typed
 * discriminated union on `ok`. Failures carry `error.kind`, one of the
 * outcome kinds; callers switch on it, never on message text.
 */
import { z } from "zod";
import { CorralError } from "./errors.js";
import { Audio, Control, Image, InputIssue, Json, Link, Resource } from "../sandbox/shared/guest-envelope.js";
import { Metrics } from "../sandbox/shared/replies.js";
import { OutcomeKind } from "../sandbox/shared/outcome-kinds.js";

// The one outcome vocabulary lives in sandbox/shared/outcome-kinds.ts, which
// both sides read; sandbox/shared/classify.ts decides each kind from evidence.
export { OUTCOME_KINDS, OutcomeKind, STRIKE_KINDS } from "../sandbox/shared/outcome-kinds.js";

export const ErrorKind = OutcomeKind.exclude(["ok"]);
export type ErrorKind = z.infer<typeof ErrorKind>;


export const Diagnostic = z.strictObject({
  message: z.string(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  lineText: z.string().optional(),
});
export type Diagnostic = z.infer<typeof Diagnostic>;

const CallInfo = {
  tool: z.string(),
  source: z.string().optional(),
  /** Content hash of the bundle the call ran, when it reached one. */
  version: z.string().optional(),
  callId: z.string(),
  metrics: Metrics,
  /**
   * Whether the call ran in an isolate its worker already had warm (false:
   * one was built for it). Absent when no isolate ran: a refusal, a
   * built-in, a call whose worker died.
   */
  warm: z.boolean().optional(),
  logs: z.array(z.string()).optional(),
};

export const ToolSuccess = z.strictObject({
  ok: z.literal(true),
  ...CallInfo,
  /** Concise text for the model: the tool's text, or its structured data as JSON. */
  output: z.string(),
  structured: Json.optional(),
  details: Json.optional(),
  control: Control.optional(),
  images: z.array(Image).optional(),
  /** Audio clips (base64), held to the same cap as images. */
  audio: z.array(Audio).optional(),
  /** Resources sent with the result (text, or bytes as base64 `blob`). */
  resources: z.array(Resource).optional(),
  /** Resources the caller may read itself. */
  links: z.array(Link).optional(),
});
export type ToolSuccess = z.infer<typeof ToolSuccess>;

export const ToolFailure = z.strictObject({
  ok: z.literal(false),
  ...CallInfo,
  error: z.strictObject({
    kind: ErrorKind,
    message: z.string(),
    issues: z.array(InputIssue).optional(),
    diagnostics: z.array(Diagnostic).optional(),
    stack: z.string().optional(),
  }),
  /** For screens and logs, never for a model: a Code Mode script's calls, when it failed after making some. */
  details: Json.optional(),
});
export type ToolFailure = z.infer<typeof ToolFailure>;

export const ToolResult = z.discriminatedUnion("ok", [ToolSuccess, ToolFailure]);
export type ToolResult = z.infer<typeof ToolResult>;

export function outcomeOf(result: ToolResult): OutcomeKind {
  if (typeof result !== "object" || result === null || typeof result.ok !== "boolean" || (!result.ok && (typeof result.error !== "object" || result.error === null))) {
    throw new CorralError("invalid_argument", "outcomeOf(result) expects a ToolResult from host.call()", { method: "outcomeOf(result)" });
  }
  return result.ok ? "ok" : result.error.kind;
}
