/**
 * @module src/loop/messages
 * The Messages API shapes the loop uses: what it sends (message params,
 * tool_result blocks), what it parses from the model (the final Message, with
 * zod), and the stream events it passes through untouched.
 *
 * Response blocks the loop does not act on (thinking, server tools, …) are
 * kept whole: the assistant turn goes back to the API as it came, and
 * thinking blocks, for one, are refused if a field is lost.
 */
import { z } from "zod";
import { ModelResponseError } from "./errors.js";

// ---------------------------------------------------------------------------
// What the loop sends.

export type TextBlockParam = { type: "text"; text: string };

/** The media types the Messages API accepts for images. */
export const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export type ImageBlockParam = {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
};

export type ToolUseBlockParam = { type: "tool_use"; id: string; name: string; input: unknown };

export type ToolResultBlockParam = {
  type: "tool_result";
  tool_use_id: string;
  /** Absent when the tool answered nothing: the API refuses empty text blocks. */
  content?: string | Array<TextBlockParam | ImageBlockParam>;
  is_error?: boolean;
};

/** Any other block (thinking, documents, server tools, …), passed through untouched. */
export type OtherBlockParam = { type: string };

export type ContentBlockParam = TextBlockParam | ImageBlockParam | ToolUseBlockParam | ToolResultBlockParam | OtherBlockParam;

export type MessageParam = {
  role: "user" | "assistant";
  content: string | ContentBlockParam[];
};

/** A client tool (`ToolDeclaration`) or a server tool such as `{ type: "web_search_20250305", name }`. */
export type ToolParam = { name: string };

/**
 * The request the loop sends each turn. `messages` and `tools` are the
 * loop's to fill; every other field (system, temperature, thinking,
 * tool_choice, …) goes to the model as given.
 */
export type MessageCreateParams = {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlockParam[];
  tools?: ToolParam[];
  [field: string]: unknown;
};

// ---------------------------------------------------------------------------
// What the model answers, parsed: an adapter hands back whatever its SDK
// produced, and the loop acts on tool_use ids, names and stop reasons.

export const STOP_REASONS = [
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal",
  "model_context_window_exceeded",
] as const;
/** The known reasons, and any the API adds later: every reason but `tool_use` and `pause_turn` ends the loop. */
export type StopReason = (typeof STOP_REASONS)[number] | (string & {});
const StopReasonSchema: z.ZodType<StopReason> = z.string();

export const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
export type TextBlock = z.infer<typeof TextBlock>;

export const ToolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string(),
  input: z.unknown(),
});
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;

const ACTED_ON_BLOCK_TYPES: ReadonlySet<string> = new Set(["text", "tool_use"]);

/** A malformed text or tool_use block must fail, not slip through as "other". */
const OtherBlock = z
  .looseObject({ type: z.string() })
  .refine((block) => !ACTED_ON_BLOCK_TYPES.has(block.type), { message: "malformed text or tool_use block" });

export const ContentBlock = z.union([TextBlock, ToolUseBlock, OtherBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;

export const Usage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
});
export type Usage = z.infer<typeof Usage>;

export const Message = z.looseObject({
  id: z.string(),
  role: z.literal("assistant"),
  content: z.array(ContentBlock),
  stop_reason: StopReasonSchema.nullable(),
  usage: Usage,
});
export type Message = z.infer<typeof Message>;

export function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}

/** Checks what an adapter got back from its SDK; throws ModelResponseError when it is no Message. */
export function parseMessage(value: unknown): Message {
  const parsed = Message.safeParse(value);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(message)"}: ${issue.message}`)
    .join("; ");
  throw new ModelResponseError(`the model answered with something that is not a Messages API message (${detail})`, parsed.error.issues);
}

// ---------------------------------------------------------------------------
// Stream events: handed to `onEvent` as they come, never interpreted.

export type StreamEvent = { type: string; [field: string]: unknown };

export function isStreamEvent(value: unknown): value is StreamEvent {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}
