/**
 * @module src/loop/run-conversation
 * runConversation(model, request, options): asks the model, runs the tools
 * it asks for through the host, answers with their results, and repeats
 * while the model stops for `tool_use` or `pause_turn`.
 *
 * ```
 *  ┌─▶ request: caller's fields + messages + (request.tools ∪ host.declarations)
 *  │      │ model.createMessage ── stream events ──▶ onEvent
 *  │      ▼
 *  │   assistant message appended
 *  │      ├─ pause_turn ───────────────────────────────────────┐
 *  │      ├─ tool_use: host.call × n (≤ maxConcurrency at once) │
 *  │      │    (their progress and logs ─▶ onEvent; ctx.sample │
 *  │      │    ─▶ this model, talk-back.ts)                     │
 *  │      │    one user message: tool_result × n, in call order │
 *  │      │    (as the conversation's caller: the host keeps    │
 *  │      │    what tool_search activated); terminate → stop    │
 *  │      └─ anything else: stop, response returned as is      │
 *  └────────────── while iterations < maxIterations ◀──────────┘
 * ```
 *
 * Invariant: whenever the loop returns, `messages` can be sent again as is.
 * Every tool_use it answered has its tool_result, and a pause_turn needs no
 * user message to continue.
 */
import { createCaller, type Caller } from "../registry/index.js";
import type { ToolResult } from "../result.js";
import { loopArguments } from "./arguments.js";
import { isToolUse, type Message, type MessageCreateParams, type MessageParam, type StopReason, type ToolParam } from "./messages.js";
import type { Model } from "./model.js";
import { resolveConversationOptions, type ConversationOptions, type ResolvedConversationOptions } from "./options.js";
import { runTools, throwIfAborted } from "./run-tools.js";
import { toToolResultBlock } from "./tool-results.js";
import { loopTalkBack, sampleWithModel } from "./talk-back.js";

/** One tool call the loop ran, with everything the host answered (details and structured included). */
export type ToolCallRecord = {
  iteration: number;
  toolUseId: string;
  name: string;
  input: unknown;
  result: ToolResult;
};

/**
 * The model's own stop reason, or the loop's: `max_iterations` (the cap was
 * reached while the model wanted to go on) or `terminated` (a tool answered
 * `control.terminate`).
 */
export type ConversationStopReason = StopReason | "max_iterations" | "terminated";

export type ConversationResult = {
  /** The model's last message. */
  response: Message;
  /** The request's messages, then every message of the conversation. */
  messages: MessageParam[];
  /** Requests made to the model. */
  iterations: number;
  /** `null` only if the model's last message carried no stop reason. */
  stopReason: ConversationStopReason | null;
  /** Every tool call, in call order within each turn. */
  toolCalls: ToolCallRecord[];
};

export async function runConversation(model: Model, request: MessageCreateParams, options: ConversationOptions): Promise<ConversationResult> {
  loopArguments.model(model);
  const o = resolveConversationOptions(options);
  const { messages: initial, tools: ownTools, ...fields } = loopArguments.request(request);
  const messages: MessageParam[] = [...initial];
  // The model's identity towards the host: it is declared, and may call,
  // only what its exposure rule allows; tool_search's finds are kept on it.
  const caller = o.caller ?? createCaller({ origin: "model" });
  const toolCalls: ToolCallRecord[] = [];
  await o.host.library?.ready();

  for (let iteration = 1; ; iteration++) {
    throwIfAborted(o.signal);
    const tools = declareTools(ownTools ?? [], o, caller);
    const turnRequest: MessageCreateParams = { ...fields, messages: [...messages], ...(tools.length > 0 ? { tools } : {}) };
    const response = await askModel(model, turnRequest, o, iteration);
    messages.push({ role: "assistant", content: response.content });
    const finish = (stopReason: ConversationStopReason | null): ConversationResult => ({ response, messages, iterations: iteration, stopReason, toolCalls });

    if (response.stop_reason === "pause_turn") {
      if (iteration >= o.maxIterations) return finish("max_iterations");
      continue;
    }
    const uses = response.content.filter(isToolUse);
    if (response.stop_reason !== "tool_use" || uses.length === 0) return finish(response.stop_reason);

    const onEvent = o.onEvent;
    const talkBack = loopTalkBack(o.talkBack, onEvent === undefined ? undefined : (event) => onEvent(event, { iteration }), sampleWithModel(model, fields.model));
    const results = await runTools(uses, { ...o, talkBack }, caller);
    throwIfAborted(o.signal);
    messages.push({ role: "user", content: uses.map((use, index) => toToolResultBlock(use.id, results[index] as ToolResult)) });
    let terminate = false;
    for (const [index, use] of uses.entries()) {
      const result = results[index] as ToolResult;
      toolCalls.push({ iteration, toolUseId: use.id, name: use.name, input: use.input, result });
      if (result.ok && result.control?.terminate === true) terminate = true;
    }
    if (terminate) return finish("terminated");
    if (iteration >= o.maxIterations) return finish("max_iterations");
  }
}

/**
 * The request's own tools first, then the host's, fresh each turn: a tool
 * activated this turn is declared from the next one, and a quarantined one
 * disappears. A name the request already declares wins over the host's
 * declaration (the API refuses duplicates); calls to it still go to the host.
 */
function declareTools(ownTools: ToolParam[], o: ResolvedConversationOptions, caller: Caller): ToolParam[] {
  const taken = new Set(ownTools.map((tool) => tool.name));
  const declared = o.host.declarations({ caller }).filter((tool) => !taken.has(tool.name));
  return [...ownTools, ...declared];
}

async function askModel(model: Model, request: MessageCreateParams, o: ResolvedConversationOptions, iteration: number): Promise<Message> {
  const listener = o.onEvent;
  const turn = { iteration };
  try {
    return await model.createMessage(request, {
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
      ...(listener !== undefined ? { onEvent: (event) => listener(event, turn) } : {}),
    });
  } catch (error) {
    // Each SDK has its own abort error; callers get one: the signal's reason.
    throwIfAborted(o.signal);
    throw error;
  }
}

