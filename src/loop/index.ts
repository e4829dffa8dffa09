/**
 * @module src/loop
 * The conversation loop and its model adapters: what other parts of corral
 * (and src/index.ts) may use.
 */
export { runConversation, type ConversationResult, type ConversationStopReason, type ToolCallRecord } from "./run-conversation.js";
export { ConversationOptions, CONVERSATION_DEFAULTS, type ConversationEventListener, type TurnInfo } from "./options.js";
export type { Model, CreateMessageOptions } from "./model.js";
export { anthropicModel, type AnthropicClientLike, type AnthropicMessageStreamLike } from "./anthropic.js";
export { toToolResultBlock, describeFailure, type FailureResult } from "./tool-results.js";
export { ModelResponseError } from "./errors.js";
export {
  Message,
  ContentBlock,
  TextBlock,
  ToolUseBlock,
  Usage,
  STOP_REASONS,
  IMAGE_MEDIA_TYPES,
  parseMessage,
  isToolUse,
  isStreamEvent,
  type StopReason,
  type StreamEvent,
  type MessageParam,
  type MessageCreateParams,
  type ContentBlockParam,
  type TextBlockParam,
  type ImageBlockParam,
  type ImageMediaType,
  type ToolUseBlockParam,
  type ToolResultBlockParam,
  type OtherBlockParam,
  type ToolParam,
} from "./messages.js";
export type { LoopHost } from "./types.js";
