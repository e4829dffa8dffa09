/**
 * @module sandbox/shared/talk-back
 * What a running tool may say to whoever called it, besides its answer:
 * progress, log messages, a question to the caller's user (elicitation) and
 * a request to the caller's model (sampling). Each is a capability request
 * on the relay (capability-messages.ts), judged and performed by the host,
 * which hands it to the call's own handlers (CallOptions: the MCP session's
 * client, the conversation loop, the embedding program). Schemas only, so
 * the host, the worker and the guest read the same words; the shapes follow
 * MCP's (2025-06-18 and 2025-11-25), the protocol with the most of them.
 *
 * ```
 * ctx.progress(done, total?, message?) ─▶ progress ─▶ onProgress, tool_progress event     (no effect; capped per call)
 * ctx.log(level, data)                 ─▶ log      ─▶ onLog, tool_log event               (no effect; capped per call)
 * ctx.elicit(message, schema)          ─▶ elicit   ─▶ elicitUser ─▶ { action, content? } (effect ask_user)
 * ctx.sample(request)                  ─▶ sample   ─▶ sampleModel ─▶ a model's message  (effect sample_model, capabilities.sampling)
 * ```
 */
import { z } from "zod";

/** RFC 5424's severities, as MCP's logging names them, least severe first. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export const LogLevel = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof LogLevel>;

/** Notices (progress and log messages together) one call may send; later ones are dropped, and the drop is logged once. */
export const MAX_NOTICES_PER_CALL = 1000;
/** The largest log message (its data as JSON text). */
export const MAX_LOG_BYTES = 16 * 1024;
/** The longest progress message or elicitation question. */
export const MAX_MESSAGE_CHARS = 2000;

export const ProgressRequest = z.strictObject({
  kind: z.literal("progress"),
  progress: z.number().finite(),
  total: z.number().finite().optional(),
  message: z.string().max(MAX_MESSAGE_CHARS).optional(),
});
export type ProgressRequest = z.infer<typeof ProgressRequest>;

export const LogRequest = z.strictObject({
  kind: z.literal("log"),
  level: LogLevel,
  /** The message's data as JSON text (MCP's `data`: any JSON). */
  dataJson: z.string().max(MAX_LOG_BYTES),
  logger: z.string().min(1).max(100).optional(),
});
export type LogRequest = z.infer<typeof LogRequest>;

/**
 * One field of an elicitation form: MCP restricts a form to a flat object of
 * primitives (string, number, integer, boolean, and arrays of enum strings for
 * multi-select), each with its own keywords (title, description, default,
 * enum, oneOf, format, minimum...), which are passed through as written.
 */
const FormField = z.looseObject({ type: z.enum(["string", "number", "integer", "boolean", "array"]) });

/** The requested schema of an elicitation, bounded: at most 50 fields. */
export const ElicitSchema = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string().min(1).max(100), FormField).refine((fields) => Object.keys(fields).length <= 50, "a form has at most 50 fields"),
  required: z.array(z.string().max(100)).max(50).optional(),
});
export type ElicitSchema = z.infer<typeof ElicitSchema>;

export const ElicitRequest = z.strictObject({
  kind: z.literal("elicit"),
  message: z.string().min(1).max(MAX_MESSAGE_CHARS),
  requestedSchema: ElicitSchema,
});
export type ElicitRequest = z.infer<typeof ElicitRequest>;

/** A person's answer: `accept` with the form's values, or `decline` / `cancel` (dismissed) without. */
export const ElicitAnswer = z.strictObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string().max(100), z.union([z.string().max(64 * 1024), z.number(), z.boolean(), z.array(z.string().max(1024)).max(100)])).optional(),
});
export type ElicitAnswer = z.infer<typeof ElicitAnswer>;

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64");

/** What a sampling message may hold: text, or an image or audio clip as base64. */
export const SampleContent = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text: z.string() }),
  z.strictObject({ type: z.literal("image"), data: Base64, mimeType: z.string().min(1).max(100) }),
  z.strictObject({ type: z.literal("audio"), data: Base64, mimeType: z.string().min(1).max(100) }),
]);
export type SampleContent = z.infer<typeof SampleContent>;

export const SampleMessage = z.strictObject({ role: z.enum(["user", "assistant"]), content: SampleContent });
export type SampleMessage = z.infer<typeof SampleMessage>;

export const SampleRequest = z.strictObject({
  kind: z.literal("sample"),
  messages: z.array(SampleMessage).min(1).max(100),
  /** Tokens the model may write: what the call's and the source's budgets are charged. */
  maxTokens: z.number().int().min(1).max(1_000_000),
  systemPrompt: z.string().max(64 * 1024).optional(),
  temperature: z.number().min(0).max(2).optional(),
  stopSequences: z.array(z.string().max(200)).max(16).optional(),
  /** Hints for the client's choice of model (MCP's modelPreferences): names it may match, and what to favour. */
  modelPreferences: z
    .strictObject({
      hints: z.array(z.strictObject({ name: z.string().max(200) })).max(10).optional(),
      costPriority: z.number().min(0).max(1).optional(),
      speedPriority: z.number().min(0).max(1).optional(),
      intelligencePriority: z.number().min(0).max(1).optional(),
    })
    .optional(),
});
export type SampleRequest = z.infer<typeof SampleRequest>;

/** The model's message, as the caller's side answers it (other fields are dropped). */
export const SampleAnswer = z.object({
  role: z.literal("assistant"),
  content: SampleContent,
  /** The model that wrote it. */
  model: z.string().max(200),
  stopReason: z.string().max(100).optional(),
});
export type SampleAnswer = z.infer<typeof SampleAnswer>;

export const TALK_BACK_KINDS = ["progress", "log", "elicit", "sample"] as const;
export type TalkBackRequest = ProgressRequest | LogRequest | ElicitRequest | SampleRequest;
