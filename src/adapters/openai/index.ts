/**
 * @module corral/openai
 * corral for OpenAI's SDKs, without importing them: function tools for the
 * Responses API, Chat Completions and the Agents SDK (openaiTools), and a
 * Responses conversation loop with runConversation's semantics
 * (runOpenAIConversation).
 */
export {
  openaiTools,
  toFunctionCallOutput,
  type OpenAIToolsOptions,
  type OpenAIToolSet,
  type ResponsesFunctionTool,
  type ChatFunctionTool,
  type AgentFunctionTool,
  type FunctionCall,
  type FunctionCallOutput,
  type OutputPart,
} from "./tools.js";
export { toStrictSchema, type StrictConversion } from "./strict-schema.js";
export {
  runOpenAIConversation,
  OpenAIConversationOptions,
  type OpenAIClientLike,
  type OpenAIConversationResult,
  type OpenAIConversationStopReason,
  type OpenAIResponse,
  type ResponseItem,
  type ResponsesRequest,
} from "../../loop/openai-responses.js";
export { OPENAI_TOOL_NAME, type AdapterHost } from "../tool-set.js";
export { createCaller, Caller } from "../../registry/index.js";
