/**
 * @module sandbox/protocol
 * The messages that cross the process boundary between the host and a sandbox
 * worker, and the envelope the guest runtime writes inside the isolate. Types
 * and zod schemas only: the host imports this file and nothing else from
 * sandbox/ (besides the pure SDK), so it must never pull in isolated-vm.
 *
 * ```
 *  host ──Task (tinypool)──────────────▶ worker ──apply──▶ guest runtime
 *  host ◀─Reply (tinypool)───────────── worker ◀─JSON text─ guest runtime
 *  host ◀─ChannelMessage (task channel)─ worker   (e.g. "started", with pid)
 * ```
 */
import { z } from "zod";

/** JSON text travels as strings so that nothing is serialised twice. */
const JsonText = z.string();

export const EFFECTS = ["read", "fs_write", "exec", "net_read", "net_write", "state_write"] as const;
export const Effect = z.enum(EFFECTS);
export type Effect = z.infer<typeof Effect>;

export const EXPOSURES = ["direct", "model_only", "codemode", "deferred", "hidden"] as const;
export const Exposure = z.enum(EXPOSURES);
export type Exposure = z.infer<typeof Exposure>;

/** Limits of one call, already capped by the host's maxima. */
export const CallLimits = z.strictObject({
  timeoutMs: z.number().int().positive(),
  memoryMb: z.number().int().min(8),
  maxOutputBytes: z.number().int().positive(),
  maxDepth: z.number().int().positive(),
});
export type CallLimits = z.infer<typeof CallLimits>;

/**
 * Where the worker finds a bundle: inline `code` or a `path` in the host's
 * cache. The worker checks the sha256 of what it reads against `hash`.
 */
export const BundleRef = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Shown in stack traces, e.g. `agent:demo` or `plugin:plugins/csv`. */
  filename: z.string().max(512),
  path: z.string().optional(),
  code: z.string().optional(),
});
export type BundleRef = z.infer<typeof BundleRef>;

export const DescribeTask = z.strictObject({
  type: z.literal("describe"),
  bundle: BundleRef,
  limits: CallLimits,
});
export type DescribeTask = z.infer<typeof DescribeTask>;

/** The longest scope name: whom a call is for (a tenant, a user, a conversation). */
export const MAX_SCOPE_CHARS = 256;
/** A scope's name: any text without control characters; "" is the default scope. */
export const Scope = z.string().max(MAX_SCOPE_CHARS).regex(/^[^\u0000-\u001f\u007f]*$/, "a scope has no control characters");

export const CallTask = z.strictObject({
  type: z.literal("call"),
  callId: z.string(),
  bundle: BundleRef,
  tool: z.string(),
  inputJson: JsonText,
  limits: CallLimits,
  /** Whom the call is for: its isolate is never one a call of another scope used. Left out: the default scope. */
  scope: Scope.optional(),
  /** `isolation: "call"`: a fresh isolate that is disposed after this call; nothing carries over. */
  fresh: z.literal(true).optional(),
  /** A Code Mode script's pre-authorized tools (see FastLane below). */
  fastLane: z.lazy(() => FastLane).optional(),
});
export type CallTask = z.infer<typeof CallTask>;

/** Channel limits of a model's text (see src/host/channels.ts), which a fast nested call's answer obeys too. */
export const ChannelCaps = z.strictObject({
  maxModelOutputChars: z.number().int().positive(),
  maxModelOutputLines: z.number().int().positive(),
  maxImageBytes: z.number().int().positive(),
});

/**
 * One tool a Code Mode script may call on the fast lane: the host judged it
 * for this script's caller when the script started (exposure, quarantine,
 * effects allowed without asking, no user gate, no capability to judge), and
 * hands over what the worker needs to run it (src/codemode/fast-lane.ts).
 */
export const FastTool = z.strictObject({
  name: z.string(),
  source: z.string(),
  bundle: BundleRef,
  limits: CallLimits,
});
export type FastTool = z.infer<typeof FastTool>;

/**
 * A script's fast lane: its tool calls of `tools` run in the script's own
 * worker without asking the host per call (sandbox/worker/fast-lane.ts);
 * every other request goes to the host as before.
 */
export const FastLane = z.strictObject({
  tools: z.array(FastTool),
  scope: Scope.optional(),
  maxCalls: z.number().int().positive(),
  maxInFlight: z.number().int().positive(),
  caps: ChannelCaps,
  /**
   * The file the worker writes the lane's journal to (sandbox/shared/lane-journal.ts):
   * made by the session that sends the task (src/pool/lane-journal.ts). Without it nothing runs on the lane.
   */
  journal: z.string().min(1).optional(),
});
export type FastLane = z.infer<typeof FastLane>;

/**
 * Builds the isolate a call of `tool` under `limits` would use, runs
 * nothing of the tool and keeps the isolate warm: sent when a load took its
 * manifests from a cache (no describe built one), so the tool's first call
 * finds its isolate as after a describe.
 */
export const WarmTask = z.strictObject({
  type: z.literal("warm"),
  bundle: BundleRef,
  tool: z.string(),
  limits: CallLimits,
});
export type WarmTask = z.infer<typeof WarmTask>;

export const Task = z.discriminatedUnion("type", [DescribeTask, CallTask, WarmTask]);
export type Task = z.infer<typeof Task>;

export const Metrics = z.strictObject({
  wallMs: z.number().nonnegative(),
  cpuMs: z.number().nonnegative(),
  heapBytes: z.number().int().nonnegative(),
});
export type Metrics = z.infer<typeof Metrics>;

// ---------------------------------------------------------------------------
// The one outcome vocabulary. Every answer corral gives (a call's ToolResult,
// a worker's reply, a load's failure) names its kind from this list, and one
// module, sandbox/shared/classify.ts, decides the kind from evidence.

export const OUTCOME_KINDS = [
  "ok",
  "tool_error",
  "invalid_input",
  "compile_error",
  "timeout",
  "memory",
  "crash",
  "blocked",
  "quarantined",
  "unknown_tool",
  "not_implemented",
  "output_too_large",
  "cancelled",
  "busy",
] as const;
export const OutcomeKind = z.enum(OUTCOME_KINDS);
export type OutcomeKind = z.infer<typeof OutcomeKind>;

/** Outcomes that count as strikes against the tool's source. */
export const STRIKE_KINDS: ReadonlySet<OutcomeKind> = new Set(["timeout", "memory", "crash"]);

/**
 * The isolate keys the worker's cache dropped (evicted, or found dead) since
 * its previous reply, when there are any: the host's routing follows them.
 */
const Evicted = z.array(z.string()).optional();

export const DescribeReply = z.strictObject({
  type: z.literal("describe"),
  /** "ok", compile_error (the module refused), or a limit's kind (classify.ts). */
  kind: OutcomeKind,
  /** The guest's manifest list as JSON text, when `kind` is "ok". */
  manifestsJson: JsonText.optional(),
  /** The isolate key the worker kept warm from this load (a module of one tool). */
  kept: z.string().optional(),
  message: z.string().optional(),
  metrics: Metrics,
  evicted: Evicted,
});
export type DescribeReply = z.infer<typeof DescribeReply>;

export const CallReply = z.strictObject({
  type: z.literal("call"),
  /** The call's outcome, classified by the worker (classify.ts). */
  kind: OutcomeKind,
  /** The guest's envelope, when the guest answered; its `ok`/`kind` agree with `kind` unless a limit overrode it. */
  envelopeJson: JsonText.optional(),
  message: z.string().optional(),
  metrics: Metrics,
  /** True when the call ran in an isolate that was already warm. */
  warm: z.boolean(),
  evicted: Evicted,
});
export type CallReply = z.infer<typeof CallReply>;

export const WarmReply = z.strictObject({
  type: z.literal("warm"),
  kind: OutcomeKind,
  /** The isolate key now warm in this worker, when `kind` is "ok". */
  kept: z.string().optional(),
  message: z.string().optional(),
  metrics: Metrics,
  evicted: Evicted,
});
export type WarmReply = z.infer<typeof WarmReply>;

export const Reply = z.discriminatedUnion("type", [DescribeReply, CallReply, WarmReply]);
export type Reply = z.infer<typeof Reply>;

// ---------------------------------------------------------------------------
// Sessions. Each worker runs one long tinypool task, `serve`, for its whole
// life; calls then travel on that task's channel, one hop each way. Tasks
// handed to a worker in the same turn of the host's event loop share one
// message, and replies the worker has ready together share one: under load
// the cost of a message (a write, a wake-up, a parse) is paid per batch.
// tinypool keeps the lifecycle: it forks, kills and replaces the process,
// and aborting the serve task is how the host kills a worker.

/**
 * Names one warm isolate, on both sides: the source (the bundle's filename),
 * the bundle, the memory limit, the tool and the scope. Two sources that load
 * the same code never share an isolate: what one left in it is never charged
 * to the other. The default scope ("") and a describe's or warm-up's isolate
 * (which no call has used yet) have the key without a scope; a scope's key adds
 * it after a unit separator, which no tool name or scope contains, so two
 * scopes never name one isolate.
 */
export function isolateKey(bundle: Pick<BundleRef, "hash" | "filename">, memoryMb: number, tool: string, scope = ""): string {
  const base = `${bundle.filename}:${bundle.hash}:${memoryMb}:${tool}`;
  return scope === "" ? base : `${base}\u001f${scope}`;
}

export const ServeTask = z.strictObject({ type: z.literal("serve") });
export type ServeTask = z.infer<typeof ServeTask>;

export const TaskEntry = z.strictObject({
  id: z.number().int().nonnegative(),
  task: Task,
  /**
   * The host's rule, carried with the task: the worker may hold this task's
   * reply back (to share a message with later ones) until this many ms after
   * the task arrived; past it the host's watchdog could fire. Left out: the
   * reply leaves at once.
   */
  replyWithinMs: z.number().nonnegative().optional(),
});
export type TaskEntry = z.infer<typeof TaskEntry>;

/** Host → worker, on the serve task's channel: tasks to run in this order, after those sent before. */
export const HostMessage = z.strictObject({
  corral: z.literal(1),
  tasks: z.array(TaskEntry).min(1),
});
export type HostMessage = z.infer<typeof HostMessage>;

/** Host → worker: drop task `id` if it has not started (its caller gave up). */
export const CancelMessage = z.strictObject({
  corral: z.literal(1),
  cancel: z.number().int().nonnegative(),
});
export type CancelMessage = z.infer<typeof CancelMessage>;

/**
 * Host → worker: run a Code Mode script's nested call of a tool now, beside
 * the script (the worker's running task), which waits for it. Nested calls
 * run one at a time, in the order sent, outside the worker's task queue: a
 * script's tool call never waits behind the script itself, even in a pool of
 * one worker. The host has judged the call already (exposure, quarantine,
 * effects, gate); the worker only runs it, under the tool's own limits.
 */
export const NestedMessage = z.strictObject({
  corral: z.literal(1),
  nested: z.strictObject({ id: z.number().int().nonnegative(), task: CallTask }),
});
export type NestedMessage = z.infer<typeof NestedMessage>;

export const ReplyEntry = z.strictObject({ id: z.number().int().nonnegative(), reply: Reply });
export type ReplyEntry = z.infer<typeof ReplyEntry>;

/**
 * The part of a running task the worker is in: a call or warm-up that must
 * first make its isolate runs the module's top level (`load`, under the load
 * time limit), then the call itself (`run`, under the call's). Sent only by
 * a task that loads, so the host's watchdog times each part by its own limit.
 */
export const TaskPhase = z.enum(["load", "run"]);
export type TaskPhase = z.infer<typeof TaskPhase>;

/**
 * One fast nested call, as the host's ledger, events and the script's
 * `details.calls` need it: `tool` indexes the lane's tools; `reply` is the
 * worker's CallReply (the envelope, when the tool answered). A call the
 * worker refused (past maxCalls or maxInFlight) has `refused` instead: it is
 * listed in the script's calls, not recorded against the tool.
 */
export const FastRecord = z.strictObject({
  tool: z.number().int().nonnegative().optional(),
  callId: z.string(),
  ms: z.number().nonnegative(),
  reply: CallReply.optional(),
  refused: z.strictObject({ name: z.string(), kind: OutcomeKind, message: z.string() }).optional(),
});
export type FastRecord = z.infer<typeof FastRecord>;

/** Records of a script's lane calls, in call order (or a refusal, which ran nothing): a line of the lane's journal (sandbox/shared/lane-journal.ts). */
export const LaneRecords = z.strictObject({ corral: z.literal(1), type: z.literal("fast"), callId: z.string(), records: z.array(FastRecord).min(1) });
export type LaneRecords = z.infer<typeof LaneRecords>;

/** Worker → host: first `ready` (with the pid the watchdog watches), then replies, in task order. */
export const WorkerMessage = z.discriminatedUnion("type", [
  z.strictObject({ corral: z.literal(1), type: z.literal("ready"), pid: z.number().int().positive() }),
  z.strictObject({ corral: z.literal(1), type: z.literal("phase"), id: z.number().int().nonnegative(), phase: TaskPhase }),
  z.strictObject({ corral: z.literal(1), type: z.literal("replies"), replies: z.array(ReplyEntry).min(1) }),
  /** The answer to a NestedMessage of the same id (sent at once, never held back). */
  z.strictObject({ corral: z.literal(1), type: z.literal("nested"), id: z.number().int().nonnegative(), reply: CallReply }),
  /** A lane record the worker could not write to its journal (sandbox/shared/lane-journal.ts): sent here instead, after every line it did write. */
  LaneRecords,
  /** Read the running task's lane journal now: a lane call that may take a while started or ended (sandbox/worker/fast-lane.ts). */
  z.strictObject({ corral: z.literal(1), type: z.literal("journal") }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;


// ---------------------------------------------------------------------------
// The guest envelope: what the guest runtime writes as JSON text.

/**
 * True for JSON data: null, booleans, finite numbers, strings, arrays and
 * plain objects of those. Checked in place, without rebuilding the value, so
 * a key such as "__proto__" (an own key after JSON.parse) is kept as it is.
 */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 1000) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => isJsonValue(item, depth + 1));
}

export const Json = z.custom<unknown>((value) => isJsonValue(value), "not JSON data");

export const Image = z.strictObject({
  mimeType: z.string(),
  data: z.string(),
});
export type Image = z.infer<typeof Image>;

export const Control = z.strictObject({
  add_tools: z.array(z.string()).optional(),
  terminate: z.boolean().optional(),
});
export type Control = z.infer<typeof Control>;

export const InputIssue = z.strictObject({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
  code: z.string(),
});
export type InputIssue = z.infer<typeof InputIssue>;

/** The kinds a guest may answer with itself: a subset of OUTCOME_KINDS. */
export const GUEST_ERROR_KINDS = ["tool_error", "invalid_input", "output_too_large", "not_implemented", "unknown_tool", "blocked"] as const satisfies readonly OutcomeKind[];

/**
 * `structured` and `details` come out of JSON.parse on the host, so they can
 * only be JSON values already; walking them again with `Json` would cost a
 * second pass over every result for nothing.
 */
const ParsedJson = z.unknown();

export const GuestEnvelope = z.discriminatedUnion("ok", [
  z.strictObject({
    ok: z.literal(true),
    text: z.string().optional(),
    structured: ParsedJson.optional(),
    details: ParsedJson.optional(),
    control: Control.optional(),
    images: z.array(Image).optional(),
    logs: z.array(z.string()).optional(),
  }),
  z.strictObject({
    ok: z.literal(false),
    kind: z.enum(GUEST_ERROR_KINDS),
    message: z.string(),
    issues: z.array(InputIssue).optional(),
    stack: z.string().optional(),
    logs: z.array(z.string()).optional(),
  }),
]);
export type GuestEnvelope = z.infer<typeof GuestEnvelope>;

/** One tool as the guest describes it; the host validates it strictly. */
export type GuestManifest = {
  name: unknown;
  description: unknown;
  inputSchema: unknown;
  outputSchema?: unknown;
  effects?: unknown;
  exposure?: unknown;
  limits?: unknown;
};

/** What `describe` answers: the tools, or the reason the module is unusable. */
export type GuestDescription =
  | { ok: true; tools: GuestManifest[] }
  | { ok: false; message: string; stack?: string };
