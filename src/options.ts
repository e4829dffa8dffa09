/**
 * @module src/options
 * The host's options: one zod schema, the type derived from it, and the
 * defaults in one constant beside it. Unknown keys are an error.
 */
import { availableParallelism } from "node:os";
import { z } from "zod";
import type { Logger } from "pino";
import type { MeterProvider, TracerProvider } from "@opentelemetry/api";
import { CorralError, describeIssues } from "./errors.js";
import { EffectPolicy } from "./gate/effect-policy.js";
import type { BeforeToolCall } from "./gate/gate.js";
import type { HostEventListener } from "./events.js";
import { LedgerOptions } from "./ledger/options.js";
import { IsolationOption } from "./host/isolation.js";
import { EXPOSURES } from "../sandbox/shared/tool-vocabulary.js";
import { PIPELINE_DEPTH, QUICK_PIPELINE_DEPTH, SPARE_WORKERS, WARM_ISOLATES_PER_WORKER } from "../sandbox/shared/tuning.js";
import { CapabilitiesOptions } from "./capabilities/options.js";
import { CodeModeOptions } from "./codemode/options.js";

export const HOST_DEFAULTS = {
  /** @default the machine's cores */
  workers: availableParallelism(),
  /** Booted processes kept idle to replace a worker that dies. @default 1 */
  spareWorkers: SPARE_WORKERS,
  /** Calls sent ahead to one worker; the next starts as the previous ends. @default 2 */
  pipelineDepth: PIPELINE_DEPTH,
  /**
   * Calls sent ahead to one worker while every one of them is a call of a
   * tool whose last QUICK_STREAK (8) calls each took at most QUICK_CALL_MS
   * (1 ms): such calls share IPC messages.
   * @default 16
   */
  quickPipelineDepth: QUICK_PIPELINE_DEPTH,
  /** @default 5000 */
  defaultTimeoutMs: 5_000,
  /** @default 60000 */
  maxTimeoutMs: 60_000,
  /** @default 64 */
  defaultMemoryMb: 64,
  /** @default 512 */
  maxMemoryMb: 512,
  /** @default 1 MiB */
  maxOutputBytes: 1024 * 1024,
  /** @default 64 */
  maxDepth: 64,
  /** Limit for loading a module and describing its tools. @default 2000 */
  loadTimeoutMs: 2_000,
  /** @default 64 */
  loadMemoryMb: 64,
  /** How long past a call's limit the host waits before killing the worker. @default 250 */
  watchdogGraceMs: 250,
  /** Resident memory a worker may gain beyond twice a call's limit before the host kills it. @default 96 */
  workerMemorySlackMb: 96,
  /** @default ".corral/cache" */
  cacheDir: ".corral/cache" as string | false,
  /**
   * The folder plugin source ids are relative to (`plugin:<path from here>`);
   * the CLI passes the config's folder. Paths outside it are named absolute;
   * corral's own plugins are `plugin:corral/<folder>` wherever they are.
   * @default the working directory at each load
   */
  sourceRoot: undefined as string | undefined,
  /**
   * What carries over between calls: `"scope"` (a warm isolate per scope:
   * calls of one scope may share it, calls of different scopes never do) or
   * `"call"` (a fresh isolate for every call); or a mode per source kind and
   * source id. See SECURITY.md. @default "scope"
   */
  isolation: "scope" as IsolationOption,
  /** Warm isolates kept per worker. @default 64 */
  maxWarmIsolates: WARM_ISOLATES_PER_WORKER,
  /** Total heap of the warm isolates of one worker. @default 512 */
  maxWarmHeapMb: 512,
  /** Calls running at once over all tools. @default workers × quickPipelineDepth */
  maxInFlight: 0,
  /** Calls of one tool running at once. @default maxInFlight */
  maxInFlightPerTool: 0,
  /** Calls waiting for a slot; one more is answered `busy` at once. @default 1000 */
  maxQueue: 1000,
  /** A tool's text for a model is cut past this many characters, with a note. @default 50000 */
  maxModelOutputChars: 50_000,
  /** … or past this many lines. @default 2000 */
  maxModelOutputLines: 2_000,
  /** The largest image, audio clip or resource blob a tool may return, decoded. @default 5 MiB */
  maxImageBytes: 5 * 1024 * 1024,
  /** Tools one agent may have registered at once. @default 20 */
  maxToolsPerAgent: 20,
  /** The largest source an agent may submit. @default 256 KiB */
  maxAgentSourceBytes: 256 * 1024,
  /** Log each call's input and output in the audit log (they may hold private data). @default false */
  logToolData: false,
  /**
   * Which calls' ledger records commit before the call's result returns.
   * "strikes": timeouts, memory and crashes; every other record is written
   * behind, within COMMIT_BEHIND_MS (20 ms) and sharing one commit with the
   * records after it (a SIGKILL of the host can lose the counts of the calls
   * answered in its last 20 ms).
   * "all": every call waits for its commit (~0.1-0.2 ms a call).
   * @default "strikes"
   */
  commitBeforeResult: "strikes" as "strikes" | "all",
} as const;

export const HostOptions = z.strictObject({
  workers: z.number().int().min(1).max(64).optional().describe("serving sandbox worker processes; default: the machine's cores"),
  spareWorkers: z.number().int().min(0).max(8).optional().describe("booted processes kept idle to replace a worker that dies; default 1"),
  pipelineDepth: z.number().int().min(1).max(16).optional().describe("calls sent ahead to one worker; default 2"),
  quickPipelineDepth: z.number().int().min(1).max(64).optional().describe("calls sent ahead to one worker while each is of a tool whose last calls took at most 1 ms; default 16"),
  defaultTimeoutMs: z.number().int().positive().optional().describe("a call's time limit when its tool names none, in ms; default 5000"),
  maxTimeoutMs: z.number().int().positive().optional().describe("the cap on any call's time limit, in ms; default 60000"),
  defaultMemoryMb: z.number().int().min(8).optional().describe("a call's memory limit when its tool names none, in MB; default 64"),
  maxMemoryMb: z.number().int().min(8).optional().describe("the cap on any call's memory limit, in MB; default 512"),
  maxOutputBytes: z.number().int().min(1024).optional().describe("the largest result, as JSON text; default 1 MiB"),
  maxDepth: z.number().int().min(1).max(1000).optional().describe("the deepest nesting of a result; default 64"),
  loadTimeoutMs: z.number().int().positive().optional().describe("the time limit for loading and describing a module, in ms; default 2000"),
  loadMemoryMb: z.number().int().min(8).optional().describe("the memory for loading and describing a module, in MB; default 64"),
  watchdogGraceMs: z.number().int().min(0).optional().describe("how long past a call's limit the host waits before killing the worker, in ms; default 250"),
  workerMemorySlackMb: z.number().int().min(0).optional().describe("resident memory a worker may gain beyond twice a call's limit before the host kills it, in MB; default 96"),
  cacheDir: z.union([z.string().min(1), z.literal(false)]).optional().describe("compiled bundles and checked manifests; false: memory only; default .corral/cache"),
  sourceRoot: z.string().min(1).optional().describe("the folder plugin:<path> source ids are relative to; default: the working folder"),
  isolation: IsolationOption.optional().describe('what carries over between calls: "scope" (default), "call", or a mode per source kind and id'),
  maxWarmIsolates: z.number().int().min(1).optional().describe("warm isolates kept per worker; default 64"),
  maxWarmHeapMb: z.number().int().min(8).optional().describe("total heap of one worker's warm isolates, in MB; default 512"),
  maxInFlight: z.number().int().min(1).optional().describe("calls running at once over all tools; default workers × quickPipelineDepth"),
  maxInFlightPerTool: z.number().int().min(1).optional().describe("calls of one tool running at once; default maxInFlight"),
  maxQueue: z.number().int().min(0).optional().describe("calls waiting for a slot; one more is answered busy; default 1000"),
  maxModelOutputChars: z.number().int().min(100).optional().describe("a tool's text for a model is cut past this many characters; default 50000"),
  maxModelOutputLines: z.number().int().min(1).optional().describe("… or past this many lines; default 2000"),
  maxImageBytes: z.number().int().min(1024).optional().describe("the largest image, audio clip or resource blob a tool may return, decoded; default 5 MiB"),
  maxToolsPerAgent: z.number().int().min(1).optional().describe("tools one agent may have registered at once; default 20"),
  maxAgentSourceBytes: z.number().int().min(1024).optional().describe("the largest source an agent may submit; default 256 KiB"),
  logToolData: z.boolean().optional().describe("log each call's input and output in the audit log; default false"),
  commitBeforeResult: z.enum(["strikes", "all"]).optional().describe("\"strikes\" (default): only strikes commit before the result returns; \"all\": every call"),
  /** Per source kind and effect: allow, ask (the gate decides) or deny. */
  effects: EffectPolicy.optional().describe("per source kind and effect: allow, ask or deny; default: plugin and agent ask, host allow"),
  /** The gate; without one, what the effect policy allows runs and what it would ask about is blocked. */
  beforeToolCall: z.custom<BeforeToolCall>((value) => typeof value === "function", "beforeToolCall must be a function").optional(),
  onEvent: z.custom<HostEventListener>((value) => typeof value === "function", "onEvent must be a function").optional(),
  /** The ledger: its store (a SQLite file by default, a postgres:// URL shared by several hosts, or false for memory), policy and clock. */
  ledger: LedgerOptions.omit({ onEvent: true, onStoreStatus: true }).optional().describe("the ledger: its store (a SQLite file, a postgres:// URL, or false for memory), quarantine policy and report sizes"),
  /** Exposure of the built-in create_tool, and the agent id its tools are registered under. */
  createTool: z
    .strictObject({ agent: z.string().min(1).max(200).describe("the agent id its tools are registered under (agent:<id>)"), exposure: z.enum(EXPOSURES).optional() })
    .optional()
    .describe("turns on the built-in create_tool"),
  /** What tools may reach beyond computing (fetch, ctx.fs, ctx.state), host-wide and per source; nothing by default. */
  capabilities: CapabilitiesOptions.optional().describe("what tools may reach beyond computing (fetch, ctx.fs, ctx.state), host-wide and per source; nothing by default"),
  /** Code Mode: the built-in run_code and its limits (codemode/options.ts, CODE_MODE_DEFAULTS); off when absent. */
  codeMode: CodeModeOptions.optional().describe("turns on Code Mode (run_code) with these limits; {} for the defaults"),
  /** A pino logger for the audit log; quiet by default. */
  logger: z.custom<Logger>((value) => typeof value === "object" && value !== null && "info" in value).optional(),
  /** OpenTelemetry providers for spans and metrics; default: the API's global ones (no-ops until an SDK registers). */
  telemetry: z
    .strictObject({
      tracerProvider: z.custom<TracerProvider>((value) => typeof (value as TracerProvider | null)?.getTracer === "function", "tracerProvider must have getTracer()").optional(),
      meterProvider: z.custom<MeterProvider>((value) => typeof (value as MeterProvider | null)?.getMeter === "function", "meterProvider must have getMeter()").optional(),
    })
    .optional(),
});
export type HostOptions = z.input<typeof HostOptions>;

export type ResolvedHostOptions = {
  -readonly [K in keyof typeof HOST_DEFAULTS]: (typeof HOST_DEFAULTS)[K] extends number ? number : (typeof HOST_DEFAULTS)[K] extends boolean ? boolean : (typeof HOST_DEFAULTS)[K];
} & {
  logger?: Logger;
  effects?: EffectPolicy;
  beforeToolCall?: BeforeToolCall;
  onEvent?: HostEventListener;
  ledger?: Omit<LedgerOptions, "onEvent" | "onStoreStatus">;
  createTool?: { agent: string; exposure?: (typeof EXPOSURES)[number] };
  capabilities?: CapabilitiesOptions;
  codeMode?: z.infer<typeof CodeModeOptions>;
  telemetry?: { tracerProvider?: TracerProvider; meterProvider?: MeterProvider };
};

export function resolveHostOptions(options: unknown): ResolvedHostOptions {
  const parsed = HostOptions.safeParse(options ?? {});
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `createHost options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  const resolved = { ...HOST_DEFAULTS, ...parsed.data } as ResolvedHostOptions;
  // A quick pipeline is never shallower than the ordinary one.
  resolved.quickPipelineDepth = Math.max(resolved.quickPipelineDepth, resolved.pipelineDepth);
  // Enough calls in flight to keep every worker's pipeline full.
  if (resolved.maxInFlight === 0) resolved.maxInFlight = resolved.workers * resolved.quickPipelineDepth;
  if (resolved.maxInFlightPerTool === 0) resolved.maxInFlightPerTool = resolved.maxInFlight;
  if (resolved.maxInFlightPerTool > resolved.maxInFlight) {
    throw new CorralError("invalid_options", "options.maxInFlightPerTool and options.maxInFlight conflict: one tool cannot run more calls than all tools together");
  }
  if (resolved.defaultTimeoutMs > resolved.maxTimeoutMs) {
    throw new CorralError("invalid_options", "options.defaultTimeoutMs and options.maxTimeoutMs conflict: the default exceeds the maximum");
  }
  if (resolved.defaultMemoryMb > resolved.maxMemoryMb) {
    throw new CorralError("invalid_options", "options.defaultMemoryMb and options.maxMemoryMb conflict: the default exceeds the maximum");
  }
  return resolved;
}
