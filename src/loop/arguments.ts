/**
 * @module src/loop/arguments
 * What the loop's public functions accept besides their options (which
 * options.ts checks): the model, the request, an SDK client, a tool result.
 * A wrong argument is a CorralError (`invalid_argument`), never a TypeError
 * from inside the loop.
 */
import { z } from "zod";
import { checkArgument } from "../arguments/check.js";
import { OUTCOME_KINDS, type ToolResult } from "../result.js";
import type { AnthropicClientLike } from "./anthropic.js";
import type { MessageCreateParams } from "./messages.js";
import type { Model } from "./model.js";

const hasFunction = (value: unknown, name: string): boolean =>
  typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)[name] === "function";

const ToolUseId = z.string();
const ModelSchema = z.custom<Model>((value) => hasFunction(value, "createMessage"), "an object with createMessage()");
const ClientSchema = z.custom<AnthropicClientLike>(
  (value) => typeof value === "object" && value !== null && hasFunction((value as { messages?: unknown }).messages, "stream"),
  "a client with messages.stream()",
);
const RequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.looseObject({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(z.unknown())]) })),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});
/** Enough of a ToolResult to read its outcome and channels; the host built it. */
const ResultShape = z.union([
  z.looseObject({ ok: z.literal(true), output: z.string() }),
  z.looseObject({ ok: z.literal(false), error: z.looseObject({ kind: z.enum(OUTCOME_KINDS), message: z.string() }) }),
]);

export const loopArguments = {
  model(model: unknown): Model {
    return checkArgument("runConversation(model, request, options)", "model", ModelSchema, model, "a model (anthropicModel(client), or an object with createMessage())");
  },
  request(request: unknown): MessageCreateParams {
    // The caller's own object is kept (parsing would copy it): its extra fields go to the model as given.
    checkArgument("runConversation(model, request, options)", "request", RequestSchema, request, "a Messages API request: { model, max_tokens, messages, tools? }");
    return request as MessageCreateParams;
  },
  client(client: unknown): AnthropicClientLike {
    return checkArgument("anthropicModel(client)", "client", ClientSchema, client, "an Anthropic SDK client (new Anthropic())");
  },
  toolResultBlock(toolUseId: unknown, result: unknown): ToolResult {
    const method = "toToolResultBlock(toolUseId, result)";
    checkArgument(method, "toolUseId", ToolUseId, toolUseId, "the tool_use block's id");
    checkArgument(method, "result", ResultShape, result, "a ToolResult from host.call()");
    return result as ToolResult;
  },
};
