/**
 * @module src/host/types
 * The public shapes of the host: what load, author and call take and answer,
 * and the Host itself.
 */
import type { AskUser } from "../gate/index.js";
import type { TalkBack } from "../capabilities/talk-back.js";
import type { CapabilityUses } from "../capabilities/capability-store.js";
import type { Caller, Manifest, ManifestOrigin } from "../registry/index.js";
import type { Diagnostic, ErrorKind, ToolResult } from "../result.js";
import type { HostEventListener } from "../events.js";
import type { Context } from "@opentelemetry/api";
import type { SourceReport, SourceRow, SourceState, StateChange } from "../ledger/index.js";
import type { HostLibrary } from "../library/host-api.js";

/**
 * host.auditSource(): the ledger's report of a source (every outcome kind
 * per tool and version, error rates, each tool's latest errors, strikes,
 * changes of state) and its capability uses, as `corral audit <source>`
 * prints them: counters per tool, effect and outcome, and the latest uses
 * with their targets (never bodies), newest first.
 */
export type HostSourceReport = SourceReport & { capabilities: CapabilityUses };

export type LoadRequest =
  | { /** `agent:<id>` or `host:<name>` */ source: string; code: string }
  | { /** A tool file or a plugin folder. */ path: string; /** @default plugin:<path> */ source?: string };

export type AuthorRequest = {
  /** The agent's id: its tools are registered under `agent:<agent>`. */
  agent: string;
  /** TypeScript source of one module. */
  code: string;
};

export type ToolInfo = {
  name: string;
  description: string;
  source: string;
  version: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  effects: string[] | null;
  exposure: Manifest["exposure"];
  /** The limits calls get by default, after the host's caps. */
  limits: { timeoutMs: number; memoryMb: number };
};

/** A tool as a model sees it, in the Messages API's shape. */
export type ToolDeclaration = { name: string; description: string; input_schema: Record<string, unknown> };

/** `busy`: the tool library could not be written (its database is down); nothing was registered, try again later. */
export type LoadFailureKind = Extract<ErrorKind, "compile_error" | "timeout" | "memory" | "crash" | "quarantined" | "busy">;
export type LoadResult =
  | {
      ok: true;
      source: string;
      version: string;
      /** The bundle came from the compile cache (memory or `cacheDir`): nothing was compiled. */
      cached: boolean;
      /**
       * Where the tools' manifests came from: `"worker"` (the module was
       * described in a fresh isolate), `"memory"` (this host described this
       * bundle before) or `"disk"` (a host described it before and wrote them
       * under `cacheDir`; nothing ran).
       */
      manifestsFrom: ManifestOrigin;
      tools: ToolInfo[];
      /** An agent's tools (host.author, create_tool): each tool's version in the library; `unchanged` when it was this very module already. */
      versions?: { name: string; version: number; unchanged: boolean }[];
    }
  | { ok: false; source: string; error: { kind: LoadFailureKind; message: string; diagnostics?: Diagnostic[] } };

/**
 * `onProgress`, `onLog`, `elicitUser`, `sampleModel` (TalkBack): where the
 * tool's `ctx.progress`, `ctx.log`, `ctx.elicit` and `ctx.sample` go. Without
 * a handler, notices are dropped (the `tool_progress` and `tool_log` events
 * still fire) and questions and samples are refused, naming why.
 */
export type CallOptions = TalkBack & {
  signal?: AbortSignal;
  /**
   * Whom the call is for: a tenant, a user, a conversation (at most 256
   * characters, no control characters). Calls of different scopes never
   * share an isolate, so nothing a tool leaves behind reaches another
   * scope's call. @default "" (the default scope)
   */
  scope?: string;
  /**
   * Who the call is made for, when not the embedding program itself: a model
   * (the loop, the MCP server, the adapters) or a Code Mode script. With a
   * caller, a tool it may not reach (hidden, codemode, deferred and not yet
   * found, create_tool unless exposed) answers `unknown_tool` exactly as a
   * name that does not exist, and nothing runs. Without one, any tool.
   */
  caller?: Caller;
  /**
   * How to put this call to the person behind its caller (the MCP server
   * passes its client's elicitation). The default gate asks through it about
   * effects whose policy is `ask`; a custom gate finds it in its context.
   * @default none: such effects are refused with the config key to change
   */
  askUser?: AskUser;
  /** Lower this call's time limit (never above the host's maximum). */
  timeoutMs?: number;
  memoryMb?: number;
  /**
   * The OpenTelemetry context the call's `corral.call` span is a child of (a
   * Code Mode script's call passes its script's span here); default: the
   * active context.
   */
  traceContext?: Context;
};

export type DeclarationOptions = {
  /** Declares the deferred tools this caller activated (tool_search found them for it). */
  caller?: Caller;
  /** More deferred tool names to declare, chosen by the embedding program. */
  activated?: Iterable<string>;
};

export type Host = {
  /** A bare string is a path: `host.load("./tool.ts")` is `host.load({ path: "./tool.ts" })`. */
  load(request: LoadRequest | string): Promise<LoadResult>;
  /** Loads every tool file and plugin folder directly inside `dir`. */
  loadDirectory(dir: string): Promise<LoadResult[]>;
  /**
   * Registers tools an agent wrote, under `agent:<id>`, within the authoring
   * limits, in the library beside the ledger: a new version of each tool the
   * module defines, served by every host of the store, kept across restarts.
   */
  author(request: AuthorRequest): Promise<LoadResult>;
  /** The library of agent-written tools: its tools and versions, rollback and retirement. */
  readonly library: HostLibrary;
  call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult>;
  tools(): ToolInfo[];
  /** Tools to declare to a model: direct and model_only, minus quarantined, plus activated deferred ones. */
  declarations(options?: DeclarationOptions): ToolDeclaration[];
  /**
   * The TypeScript declarations a Code Mode script is written against (the
   * tools a script of `caller` may call), as run_code's description carries
   * them. Throws `code_mode_off` unless the host has `codeMode` options.
   */
  codeModeDeclarations(options?: DeclarationOptions): string;
  /** Adds an event listener; the returned function removes it. */
  on(listener: HostEventListener): () => void;
  /** The ledger, for operators. */
  sourceState(source: string): Promise<SourceState>;
  quarantine(source: string, options: { reason: string; until?: number | null; actor?: string }): Promise<StateChange>;
  release(source: string, options?: { reason?: string; actor?: string }): Promise<StateChange>;
  audit(): Promise<SourceRow[]>;
  auditSource(source: string): Promise<HostSourceReport | null>;
  readonly alive: boolean;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};
