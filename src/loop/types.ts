/**
 * @module src/loop/types
 * What the conversation loop needs from a host: the tools to declare to the
 * model, and a way to call one. A real `Host` satisfies `LoopHost`
 * structurally, and tests or other runtimes can stand in for it.
 */
import type { ToolDeclaration } from "../host/index.js";
import type { Caller } from "../registry/index.js";
import type { ToolResult } from "../result.js";

export type LoopHost = {
  /**
   * Tools to declare to the model: direct and model_only ones minus
   * quarantined, plus the deferred ones activated for this caller.
   */
  declarations(options?: { caller?: Caller }): ToolDeclaration[];
  /**
   * Never throws for a tool's failure: that is a ToolResult with `ok: false`.
   * Refuses (unknown_tool) what `caller` may not reach, and activates for it
   * the deferred tools tool_search found.
   */
  call(name: string, input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number; caller?: Caller; scope?: string }): Promise<ToolResult>;
  /** A corral host's library of agent-written tools: the loop waits for it to be read before declaring tools. */
  library?: { ready(): Promise<void> };
};
