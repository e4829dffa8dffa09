/**
 * @module src/loop/run-tools
 * Runs one turn's tool calls for a conversation loop (Anthropic's tool_use
 * blocks, OpenAI's function calls): at most maxConcurrency at once, answered
 * in call order whatever order they finish in, all as the conversation's
 * caller and in the conversation's isolation scope. host.call never throws for a tool's failure; if it throws anyway
 * (a closed host), no further call starts, the running ones finish, and the
 * first error is rethrown.
 */
import type { Caller } from "../registry/index.js";
import type { ToolResult } from "../result.js";
import type { LoopHost } from "./types.js";
import type { TalkBack } from "../capabilities/talk-back.js";

export type ToolRun = { name: string; input: unknown };

export type RunToolsOptions = {
  host: LoopHost;
  maxConcurrency: number;
  signal: AbortSignal | undefined;
  toolTimeoutMs: number | undefined;
  /** The conversation's isolation scope (host.call's `scope`). */
  scope: string;
  /** Where the tools' progress, log messages, questions and samples go. */
  talkBack?: TalkBack;
};

export async function runTools(uses: readonly ToolRun[], o: RunToolsOptions, caller: Caller): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array<ToolResult>(uses.length);
  const callOptions = {
    caller,
    scope: o.scope,
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    ...(o.toolTimeoutMs !== undefined ? { timeoutMs: o.toolTimeoutMs } : {}),
    ...o.talkBack,
  };
  let next = 0;
  let thrown: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (thrown === undefined && next < uses.length) {
      const index = next++;
      const use = uses[index] as ToolRun;
      try {
        results[index] = await o.host.call(use.name, use.input, callOptions);
      } catch (error) {
        thrown ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.maxConcurrency, uses.length) }, lane));
  if (thrown !== undefined) throw thrown.error;
  return results;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw signal.reason;
}
