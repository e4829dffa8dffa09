/**
 * @module corral
 * The public surface: named exports only.
 */

// The host
export {
  createHost,
  AUDIO_MIME_TYPES,
  IMAGE_MIME_TYPES,
  type Host,
  type HostSourceReport,
  type AuthorRequest,
  type LoadRequest,
  type LoadResult,
  type LoadFailureKind,
  type ManifestOrigin,
  type ToolInfo,
  type ToolDeclaration,
  type CallOptions,
  type DeclarationOptions,
} from "./host/index.js";
export { Caller, createCaller, CallerOptions, CALLER_ORIGINS, type CallerOrigin } from "./registry/index.js";
export { HostOptions, HOST_DEFAULTS } from "./options.js";

// The library of agent-written tools (host.library; its stores, for programs that open one alone)
export { MemoryLibraryStore, SqliteLibraryStore, PostgresLibraryStore, type LibraryStore, type HostLibrary, type LibraryTool, type LibraryVersion } from "./library/index.js";

// corral.json: the CLI's config, createHost's options as data (docs/config.md)
export { CorralConfig, CONFIG_FILE_NAME, configJsonSchema, findConfigFile, readConfig, type ConfigHostOptions, type ConfigIssue, type LoadedConfig } from "./config/index.js";

// Events
export type { HostEvent, HostEventListener } from "./events.js";

// OpenTelemetry: the names of corral's spans, metrics and attributes
export { SPAN_CALL, SPAN_LOAD, TELEMETRY_ATTRIBUTES, TELEMETRY_METRICS, type TelemetryProviders } from "./telemetry/index.js";

// The audit dashboard (what `corral dashboard` serves)
export { createDashboard, DashboardOptions, DASHBOARD_DEFAULTS, type Dashboard } from "./dashboard/index.js";

// Gate and effects
export {
  EffectPolicy,
  EffectDecision,
  EFFECT_POLICY_DEFAULTS,
  GateDecision,
  type AskUser,
  type BeforeToolCall,
  type GateCall,
  type GateContext,
} from "./gate/index.js";

// The ledger
export {
  Ledger,
  LedgerOptions,
  MemoryLedgerStore,
  SqliteLedgerStore,
  PostgresLedgerStore,
  PostgresStoreOptions,
  DEFAULT_POLICY,
  UNTIL_RELEASED_POLICY,
  QuarantinePolicy,
  SourceState,
  SourceRow,
  SourceReport,
  ToolVersionCounts,
  ToolErrorEntry,
  ERRORS_KEPT_PER_TOOL,
  ScriptToolsReport,
  ScriptCallersReport,
  LedgerEvent,
  NotALedgerError,
  SqliteDashboardReader,
  PostgresDashboardReader,
  type DashboardReader,
  type LedgerStore,
  type StoreStatus,
  type StateChange,
} from "./ledger/index.js";

// Where ctx.state and the record of capability use live (capabilities.store)
export {
  MemoryCapabilityStore,
  SqliteCapabilityStore,
  PostgresCapabilityStore,
  type CapabilityStore,
  type CapabilityUse,
  type CapabilityCounter,
  type CapabilityUses,
} from "./capabilities/index.js";

// What a running tool says to its caller (CallOptions: onProgress, onLog, elicitUser, sampleModel)
export type { TalkBack, TalkBackCall, ToolProgress, ToolLog, ElicitQuestion, SampleParams } from "./capabilities/index.js";
export { ElicitAnswer, SampleAnswer, LOG_LEVELS, type LogLevel, type SampleContent, type SampleMessage, type ElicitSchema } from "../sandbox/shared/talk-back.js";

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

// The conversation loop
export {
  runConversation,
  anthropicModel,
  ConversationOptions,
  CONVERSATION_DEFAULTS,
  ModelResponseError,
  Message,
  parseMessage,
  toToolResultBlock,
  type Model,
  type CreateMessageOptions,
  type LoopHost,
  type ConversationResult,
  type ConversationStopReason,
  type ToolCallRecord,
  type TurnInfo,
  type ConversationEventListener,
  type MessageCreateParams,
  type MessageParam,
  type StopReason,
  type StreamEvent,
  type AnthropicClientLike,
} from "./loop/index.js";

// The plugins that ship with corral: host.loadDirectory(bundledPluginsDir)
// loads them wherever the package is installed.
export { BUNDLED_PLUGINS_DIR as bundledPluginsDir } from "./cli/plugins-dir.js";

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
  type ToolRunResult,
  type Effect,
  type Exposure,
} from "../sandbox/sdk/index.js";
