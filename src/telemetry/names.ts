/**
 * @module src/telemetry/names
 * The names corral's spans, metrics and attributes carry, in one place.
 *
 * Where OpenTelemetry's semantic conventions name a thing, corral uses that
 * name: a call is a tool execution in the GenAI conventions
 * (`gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`,
 * `gen_ai.tool.call.id`, `gen_ai.tool.type`; span kind INTERNAL), a failed
 * call sets `error.type`, and durations are in seconds as the conventions
 * ask. The conventions name a tool span `execute_tool {gen_ai.tool.name}`;
 * corral names it `corral.call` instead, one stable low-cardinality name
 * to filter on, and carries the tool's name as the attribute. What has no
 * convention (source, version, outcome kind, isolate metrics, quarantine,
 * workers) is under `corral.`.
 */

export const INSTRUMENTATION_SCOPE = "corral";

export const SPAN_CALL = "corral.call";
export const SPAN_LOAD = "corral.load";

/** GenAI semantic conventions (execute_tool spans) and the general `error.type`. */
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
export const GEN_AI_TOOL_TYPE = "gen_ai.tool.type";
export const ERROR_TYPE = "error.type";
export const EXECUTE_TOOL = "execute_tool";

/** corral's own attributes. Times are milliseconds, as the ledger keeps them. */
export const ATTR = {
  source: "corral.source",
  version: "corral.version",
  outcome: "corral.outcome",
  warm: "corral.warm",
  wallMs: "corral.wall_ms",
  cpuMs: "corral.cpu_ms",
  heapBytes: "corral.heap_bytes",
  gateWaitMs: "corral.gate_wait_ms",
  tools: "corral.load.tools",
  cached: "corral.load.cached",
  manifestsFrom: "corral.load.manifests_from",
} as const;

/** Metrics: counts are `{unit}` annotations, durations seconds (the conventions' rule). */
export const METRIC = {
  calls: "corral.calls",
  duration: "corral.call.duration",
  quarantined: "corral.sources.quarantined",
  workerRestarts: "corral.worker.restarts",
} as const;

/**
 * Call durations run from ~0.1 ms (a warm call) to the longest time limit;
 * the SDK's default buckets start at 5 (seconds, here), which would put
 * every call in one bucket.
 */
export const DURATION_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The tool attribute on metrics for a name that is no tool: a caller's typos must not make new series. */
export const UNKNOWN_TOOL = "(unknown)";
