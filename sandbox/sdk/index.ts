/**
 * @module sandbox/sdk
 * What a tool author imports as `"corral"`. Inside an isolate this module is
 * part of the guest runtime (the same instance for every import in a bundle);
 * in an editor it gives the same types. It is pure: no Node built-ins, no host
 * code, so it is safe to bundle for the isolate.
 */
import type { z } from "zod";

export type Effect = "read" | "fs_write" | "exec" | "net_read" | "net_write" | "state_write";
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
};

export type ImageContent = { mimeType: string; data: string };

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
