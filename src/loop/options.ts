/**
 * @module src/loop/options
 * runConversation's options: one zod schema, the type derived from it, and
 * the defaults in one constant beside it. Unknown keys are an error.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { TalkBackOptions, talkBackOf, type TalkBack } from "../capabilities/talk-back.js";
import { Scope } from "../../sandbox/shared/task-parts.js";
import { CorralError, describeIssues } from "../errors.js";
import { Caller } from "../registry/index.js";
import type { StreamEvent } from "./messages.js";
import type { LoopHost } from "./types.js";

/** Where in the conversation a stream event came from. */
export type TurnInfo = {
  /** 1 for the first request to the model, then one more per request. */
  iteration: number;
};

export type ConversationEventListener = (event: StreamEvent, turn: TurnInfo) => void;

export const CONVERSATION_DEFAULTS = {
  /** Requests to the model, at most, pause_turn continuations included. @default 10 */
  maxIterations: 10,
  /** Tool calls of one turn running at once. @default 1 */
  maxConcurrency: 1,
} as const;

function isLoopHost(value: unknown): value is LoopHost {
  if (typeof value !== "object" || value === null) return false;
  const host = value as { declarations?: unknown; call?: unknown };
  return typeof host.declarations === "function" && typeof host.call === "function";
}

export const ConversationOptions = z.strictObject({
  /** Runs the tools and says which to declare: a corral Host, or anything with the same two methods. */
  host: z.custom<LoopHost>(isLoopHost, { message: "expected a host with declarations() and call()" }),
  /** @default 10 */
  maxIterations: z.number().int().min(1).optional(),
  /** @default 1 */
  maxConcurrency: z.number().int().min(1).max(64).optional(),
  /** Lowers each tool call's time limit (never raises it past the host's maximum). @default the tool's own limit */
  toolTimeoutMs: z.number().int().positive().optional(),
  /** Every stream event of every turn, as it comes. A throw from it rejects runConversation. */
  onEvent: z.custom<ConversationEventListener>((value) => typeof value === "function", { message: "expected a function" }).optional(),
  /**
   * The isolation scope of every tool call of this conversation (host.call's
   * `scope`): nothing a tool leaves behind in one conversation reaches
   * another's calls. Name one to share a scope across conversations (a user's).
   * @default a new scope per conversation, `conversation:<uuid>`
   */
  scope: Scope.optional(),
  /** Aborts the model request in flight and the tool calls running; runConversation then rejects with `signal.reason`. */
  signal: z.instanceof(AbortSignal).optional(),
  /**
   * The conversation's caller (createCaller()): pass the same one to each
   * runConversation of one conversation so the deferred tools found earlier
   * stay callable. @default a new model caller per run
   */
  caller: z.instanceof(Caller).optional(),
  /**
   * Where the tools' talk-back goes (host.call's handlers: onProgress, onLog,
   * elicitUser, sampleModel). Progress and log messages also reach
   * `onEvent` as `tool_progress` and `tool_log`; `ctx.sample` goes to the
   * conversation's own model unless sampleModel says otherwise (talk-back.ts).
   */
  ...TalkBackOptions,
});
export type ConversationOptions = z.input<typeof ConversationOptions>;

export type ResolvedConversationOptions = {
  host: LoopHost;
  maxIterations: number;
  maxConcurrency: number;
  toolTimeoutMs: number | undefined;
  onEvent: ConversationEventListener | undefined;
  signal: AbortSignal | undefined;
  scope: string;
  caller: Caller | undefined;
  /** The program's own talk-back handlers. */
  talkBack: TalkBack;
};

export function resolveConversationOptions(options: unknown): ResolvedConversationOptions {
  const parsed = ConversationOptions.safeParse(options);
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `runConversation options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  const o = parsed.data;
  return {
    host: o.host,
    maxIterations: o.maxIterations ?? CONVERSATION_DEFAULTS.maxIterations,
    maxConcurrency: o.maxConcurrency ?? CONVERSATION_DEFAULTS.maxConcurrency,
    toolTimeoutMs: o.toolTimeoutMs,
    onEvent: o.onEvent,
    signal: o.signal,
    scope: conversationScope(o.scope),
    caller: o.caller,
    talkBack: talkBackOf(o),
  };
}

/** The isolation scope of a conversation's tool calls: the one named, else a new one of its own. */
export function conversationScope(scope: string | undefined): string {
  return scope ?? `conversation:${randomUUID()}`;
}
