/**
 * @module sandbox/sdk
 * What a tool author imports as `"corral"`. Inside an isolate this module is
 * part of the guest runtime (the same instance for every import in a bundle);
 * in an editor it gives the same types. It is pure: no Node built-ins, no host
 * code, so it is safe to bundle for the isolate.
 */
import type { z } from "zod";

export type Effect = "read" | "fs_write" | "exec" | "net_read" | "net_write" | "state_write" | "ask_user" | "sample_model";
export type Exposure = "direct" | "model_only" | "codemode" | "deferred" | "hidden";

export type ToolLimits = {
  /** Wall-clock limit of one call, sync and async work together. Capped by the host. */
  timeoutMs?: number;
  /** Heap limit of the tool's isolate. Capped by the host. */
  memoryMb?: number;
};

/** A directory entry of `ctx.fs.readdir(path, { withFileTypes: true })`. */
export type ToolDirent = { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean };
export type ToolStats = Omit<ToolDirent, "name"> & { size: number; mtimeMs: number; mtime: Date; mode: number };

/**
 * Files under the workspace root the host granted this tool's source, named
 * after node:fs/promises; paths are relative to that root. Reading needs the
 * `read` effect, changing needs `fs_write`. Links are never followed.
 */
export type ToolFs = {
  readFile(path: string): Promise<Uint8Array>;
  readFile(path: string, options: "utf8" | "utf-8" | "base64" | "latin1" | { encoding: "utf8" | "utf-8" | "base64" | "latin1" }): Promise<string>;
  writeFile(path: string, data: string | Uint8Array | ArrayBuffer | ArrayBufferView, options?: "utf8" | "base64" | "latin1" | { encoding?: string }): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readdir(path: string, options: { withFileTypes: true }): Promise<ToolDirent[]>;
  stat(path: string): Promise<ToolStats>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
};

/**
 * A key-value store of this tool's source, kept by the host across calls and
 * restarts, under a quota. Values are JSON. `get`/`list` need `read` or
 * `state_write`; `set`/`delete` need `state_write`.
 */
export type ToolState = {
  get(key: string): Promise<unknown>;
  list(prefix?: string): Promise<string[]>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
};

/** RFC 5424's severities, as MCP's logging names them. */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** A form field of an elicitation: MCP's flat primitives (string, number, integer, boolean, array of enum strings). */
export type FormFieldSchema = { type: "string" | "number" | "integer" | "boolean" | "array"; title?: string; description?: string; default?: unknown; [keyword: string]: unknown };
export type FormSchema = { type: "object"; properties: Record<string, FormFieldSchema>; required?: string[] };

/** The person's answer: `accept` with the form's values (a zod form's parsed), or `decline` / `cancel` without. */
export type ElicitAnswer<T = Record<string, string | number | boolean | string[]>> = { action: "accept"; content: T } | { action: "decline" | "cancel"; content?: undefined };

export type SampleContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | { type: "audio"; data: string; mimeType: string };
export type SampleRequest = {
  /** A prompt, or the conversation so far. */
  messages: string | Array<{ role: "user" | "assistant"; content: string | SampleContent }>;
  /** Tokens the model may write; the call's and the source's budgets (capabilities.sampling) are charged this much. */
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  /** Hints for the caller's choice of model. */
  modelPreferences?: { hints?: Array<{ name: string }>; costPriority?: number; speedPriority?: number; intelligencePriority?: number };
};
export type SampleAnswer = { role: "assistant"; content: SampleContent; model: string; stopReason?: string };

/** What `run` receives besides its input. */
export type ToolContext = {
  /** The host's id of this call, for correlating logs. */
  callId: string;
  /** The tool's own name. */
  tool: string;
  /** Workspace files, as the host grants (see ToolFs). The global `fetch` is the third capability. */
  fs: ToolFs;
  /** The source's key-value state (see ToolState). */
  state: ToolState;
  /**
   * Tells the caller how far the call has got (MCP progress notifications,
   * the `tool_progress` event). Needs no effect; never fails the tool; at most
   * 1000 notices (progress and log messages) per call.
   */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** A log message for the caller (MCP `notifications/message`, the `tool_log` event); data is JSON, cut at 16 KiB. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the caller's user to fill in a form (MCP elicitation). Needs the
   * `ask_user` effect; refused when the caller has nobody to ask. With a zod
   * object as the form, an accepted answer is its parsed data.
   */
  elicit<S extends z.ZodObject>(message: string, form: S): Promise<ElicitAnswer<z.infer<S>>>;
  elicit(message: string, form: FormSchema): Promise<ElicitAnswer>;
  /** Asks the caller's model for a message (MCP sampling). Needs the `sample_model` effect and a `capabilities.sampling` grant. */
  sample(request: SampleRequest): Promise<SampleAnswer>;
};

export type ImageContent = { mimeType: string; data: string };
/** An audio clip as base64 (audio/wav, audio/mpeg, audio/ogg, audio/webm, audio/flac). */
export type AudioContent = { mimeType: string; data: string };
/** A resource sent with the result, its text or its bytes as base64 (MCP's embedded resource). */
export type EmbeddedResource = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
/** A resource the caller may fetch itself (MCP's resource link). */
export type ResourceLink = { uri: string; name: string; title?: string; description?: string; mimeType?: string };

export type ControlDirectives = {
  /** Names of deferred tools to activate for the rest of the conversation. */
  add_tools?: string[];
  /** Ask the conversation loop to stop after this turn. */
  terminate?: boolean;
};

/** A result with explicit channels; build it with `toolResult()`. */
export type ToolResultChannels<O = unknown> = {
  /** Concise text for the model. */
  text?: string;
  /** JSON for programs; must match the tool's output schema when it has one. */
  structured?: O;
  /** Rich data for screens and logs, never sent to the model. */
  details?: unknown;
  control?: ControlDirectives;
  images?: ImageContent[];
  audio?: AudioContent[];
  /** Resources sent with the result; a model reads their text, a program gets them whole. */
  resources?: EmbeddedResource[];
  links?: ResourceLink[];
};

export type ToolDefinition<I extends z.ZodObject = z.ZodObject, O = unknown> = {
  /** 1-64 letters, digits, `_` or `-`. */
  name: string;
  description: string;
  input: I;
  output?: z.ZodType<O>;
  /** What the tool touches outside itself; `[]` declares it pure. */
  effects: Effect[];
  /** @default "direct" */
  exposure?: Exposure;
  limits?: ToolLimits;
  /** With an `output` schema, what it returns is checked against it when compiled (and again when it runs). */
  run(input: z.infer<I>, ctx: ToolContext): ToolRunResult<NoInfer<O>>;
};

/**
 * What `run` may return: anything without an output schema; with one, the
 * schema's type or a `toolResult()` whose `structured` has it, maybe in a
 * promise. `O` is inferred from `output` alone (NoInfer above): a wrong
 * return is then an error at `run`, not a wider `O`.
 */
export type ToolRunResult<O> = unknown extends O ? unknown : O | ToolResultValue<O> | Promise<O | ToolResultValue<O>>;

declare const TOOL_BRAND: unique symbol;
export type Tool<I extends z.ZodObject = z.ZodObject, O = unknown> = Readonly<ToolDefinition<I, O>> & {
  readonly [TOOL_BRAND]: true;
};

declare const RESULT_BRAND: unique symbol;
export type ToolResultValue<O = unknown> = Readonly<ToolResultChannels<O>> & { readonly [RESULT_BRAND]: true };

// Brands live in module-level WeakSets: a tool can mark only what passed
// through these functions, and the runtime reads the same sets. The methods
// they use are captured now, before any tool code runs: a tool that replaces
// WeakSet.prototype.has or Object.freeze later cannot brand what it likes
// (which would forge tools in its manifest or results in its answer).
const tools = new WeakSet<object>();
const results = new WeakSet<object>();
const FERAL_APPLY = Reflect.apply;
const FERAL_FREEZE = Object.freeze;
const FERAL_WEAKSET_ADD = WeakSet.prototype.add;
const FERAL_WEAKSET_HAS = WeakSet.prototype.has;
const brand = (set: WeakSet<object>, value: object) => FERAL_APPLY(FERAL_WEAKSET_ADD, set, [value]);
const branded = (set: WeakSet<object>, value: object): boolean => FERAL_APPLY(FERAL_WEAKSET_HAS, set, [value]) === true;
/** A frozen copy of `source`'s own enumerable properties (spread defines them: no setter runs). */
const frozenCopy = <T extends object>(source: T): T => FERAL_FREEZE({ ...source });

/**
 * Declares a tool. The runtime finds tools among the module's default export
 * (one tool or an array) and its named exports.
 */
export function defineTool<I extends z.ZodObject, O = unknown>(definition: ToolDefinition<I, O>): Tool<I, O> {
  if (definition === null || typeof definition !== "object") {
    throw new TypeError("defineTool expects an object with name, description, input, effects and run");
  }
  const tool = frozenCopy(definition);
  brand(tools, tool);
  return tool as Tool<I, O>;
}

/** Answers with explicit channels instead of a plain value. */
export function toolResult<O = unknown>(channels: ToolResultChannels<O>): ToolResultValue<O> {
  const value = frozenCopy(channels);
  brand(results, value);
  return value as ToolResultValue<O>;
}

/** True for what `defineTool` returned. Used by the guest runtime. */
export function isTool(value: unknown): value is Tool {
  return typeof value === "object" && value !== null && branded(tools, value);
}

/** True for what `toolResult` returned. Used by the guest runtime. */
export function isToolResult(value: unknown): value is ToolResultValue {
  return typeof value === "object" && value !== null && branded(results, value);
}
