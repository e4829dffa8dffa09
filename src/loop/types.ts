/**
 * @module src/loop/types
 * What the conversation loop needs from a host: the tools to declare to the
 * model, and a way to call one. A real `Host` satisfies `LoopHost`
 * structurally, and tests or other runtimes can stand in for it.
 */
import type { ToolDeclaration } from "../host/index.js";
import type { ToolResult } from "../result.js";

export type LoopHost = {
  /**
   * Tools to declare to the model: direct and model_only ones minus
   * quarantined, plus the named deferred ones activated in this conversation.
   * Names in `activated` that are not deferred tools are ignored by the host.
   */
  declarations(options?: { activated?: Iterable<string> }): ToolDeclaration[];
  /** Never throws for a tool's failure: that is a ToolResult with `ok: false`. */
  call(name: string, input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number; scope?: string }): Promise<ToolResult>;
};
