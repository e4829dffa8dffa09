/**
 * @module corral
 * The public surface: named exports only.
 */

// The host
export { createHost, type Host, type LoadRequest, type LoadResult, type ToolInfo, type CallOptions } from "./host.js";
export { HostOptions, HOST_DEFAULTS } from "./options.js";

// Results
export {
  ToolResult,
  ToolSuccess,
  ToolFailure,
  OutcomeKind,
  ErrorKind,
  OUTCOME_KINDS,
  STRIKE_KINDS,
  Diagnostic,
  outcomeOf,
} from "./result.js";

// Errors of misuse
export { CorralError, HostClosedError, ERROR_CODES, type CorralErrorCode } from "./errors.js";

// The tool-author SDK: the same module a tool imports as "corral" inside its
// isolate (pure code, no host parts), so editors get the same types.
export {
  defineTool,
  toolResult,
  type Tool,
  type ToolDefinition,
  type ToolContext,
  type ToolLimits,
  type ToolResultChannels,
  type Effect,
  type Exposure,
} from "../sandbox/sdk/index.js";
