/**
 * @module src/loop/openai-responses
 * runOpenAIConversation(client, request, options): the conversation loop of
 * runConversation, for OpenAI's Responses API. Same semantics: the host's
 * tools declared afresh each turn for the conversation's caller, a turn's
 * function calls run through the host (≤ maxConcurrency at once) and
 * answered in call order, `control.terminate` stops, `maxIterations` caps.
 *
 * ```
 *  ┌─▶ body: caller's fields + input items + (request.tools ∪ openaiTools(host))
 *  │      │ client.responses.create(body, { signal }) ─▶ parse (zod)
 *  │      ▼
 *  │   response.output items appended to the input
 *  │      ├─ function_call × n: host.call × n ─▶ function_call_output × n
 *  │      │    terminate → stop
 *  │      └─ none: stop (status completed, or why it is incomplete)
 *  └────────────── while iterations < maxIterations
 * ```
 *
 * The loop is stateless towards the API: each request carries the whole
 * input, so it works with `store: false` (add `include:
 * ["reasoning.encrypted_content"]` for reasoning models). The client is
 * typed by the one method used: corral does not depend on `openai`.
 */
import { z } from "zod";
import { openaiTools, toFunctionCallOutput } from "../adapters/openai/tools.js";
import { CorralError, describeIssues } from "../errors.js";
import { Caller, createCaller } from "../registry/index.js";
import type { ToolResult } from "../result.js";
import { ModelResponseError } from "./errors.js";
import { ConversationOptions, conversationScope } from "./options.js";
import { runTools, throwIfAborted } from "./run-tools.js";
import { loopTalkBack, sampleWithResponses } from "./talk-back.js";
import { talkBackOf } from "../capabilities/talk-back.js";
import type { ToolCallRecord } from "./run-conversation.js";

/** The part of the `openai` client this loop uses. */
export type OpenAIClientLike = {
  responses: {
    /** `body` is `never` so that any client fits; the API validates the body itself. */
    create(body: never, options?: { signal?: AbortSignal }): PromiseLike<unknown>;
  };
};

/** One input or output item; the loop reads function calls and passes every other item through untouched. */
export type ResponseItem = { type?: string; [field: string]: unknown };

export type ResponsesRequest = {
  model: string;
  input: string | ResponseItem[];
  tools?: Array<{ type: string; name?: string; [field: string]: unknown }>;
  [field: string]: unknown;
};

const FunctionCallItem = z.looseObject({ type: z.literal("function_call"), call_id: z.string().min(1), name: z.string(), arguments: z.string() });
const Response = z.looseObject({
  id: z.string(),
  status: z.string().nullable().optional(),
  output: z.array(z.looseObject({ type: z.string() })),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullable().optional(),
});
export type OpenAIResponse = z.infer<typeof Response>;

export type OpenAIConversationStopReason = "completed" | "max_iterations" | "terminated" | (string & {});

export type OpenAIConversationResult = {
  /** The model's last response. */
  response: OpenAIResponse;
  /** The request's input, then every output item and function_call_output of the conversation. */
  input: ResponseItem[];
  iterations: number;
  /** `completed`, the loop's own (`max_iterations`, `terminated`), or why the response is incomplete. */
  stopReason: OpenAIConversationStopReason;
  toolCalls: ToolCallRecord[];
};

export const OpenAIConversationOptions = ConversationOptions.omit({ onEvent: true }).extend({
  /** Strict function calling for the host's tools (see openaiTools). @default true */
  strict: z.boolean().optional(),
});
export type OpenAIConversationOptions = z.input<typeof OpenAIConversationOptions>;

export async function runOpenAIConversation(client: OpenAIClientLike, request: ResponsesRequest, options: OpenAIConversationOptions): Promise<OpenAIConversationResult> {
  const parsedOptions = OpenAIConversationOptions.safeParse(options);
  if (!parsedOptions.success) {
    const detail = describeIssues(parsedOptions.error.issues);
    throw new CorralError("invalid_options", `runOpenAIConversation options are invalid: ${detail}`, { issues: parsedOptions.error.issues });
  }
  const o = parsedOptions.data;
  const run = {
    host: o.host,
    maxConcurrency: o.maxConcurrency ?? 1,
    signal: o.signal,
    toolTimeoutMs: o.toolTimeoutMs,
    scope: conversationScope(o.scope),
    // No stream events here: progress and logs go to the program's handlers; ctx.sample to this conversation's model.
    talkBack: loopTalkBack(talkBackOf(o), undefined, sampleWithResponses(client, request.model)),
  };
  const maxIterations = o.maxIterations ?? 10;
  const caller: Caller = o.caller ?? createCaller({ origin: "model" });
  const { input: initial, tools: ownTools = [], ...fields } = request;
  const input: ResponseItem[] = typeof initial === "string" ? [{ role: "user", content: initial }] : [...initial];
  const toolCalls: ToolCallRecord[] = [];
  await o.host.library?.ready();

  for (let iteration = 1; ; iteration++) {
    throwIfAborted(o.signal);
    const set = openaiTools(o.host, { caller, ...(o.strict !== undefined ? { strict: o.strict } : {}) });
    const taken = new Set(ownTools.map((tool) => tool.name));
    const tools = [...ownTools, ...set.responses.filter((tool) => !taken.has(tool.name))];
    const response = await ask(client, { ...fields, input: [...input], ...(tools.length > 0 ? { tools } : {}) }, o.signal);
    input.push(...(response.output as ResponseItem[]));
    const finish = (stopReason: OpenAIConversationStopReason): OpenAIConversationResult => ({ response, input, iterations: iteration, stopReason, toolCalls });

    const calls = response.output.flatMap((item) => {
      const call = FunctionCallItem.safeParse(item);
      return call.success ? [call.data] : [];
    });
    if (calls.length === 0) return finish(response.status === "incomplete" ? (response.incomplete_details?.reason ?? "incomplete") : (response.status ?? "completed"));

    const inputs = calls.map((call) => set.inputOf(call.name, call.arguments));
    const results = await runTools(calls.map((call, index) => ({ name: call.name, input: inputs[index] })), run, caller);
    throwIfAborted(o.signal);
    let terminate = false;
    for (const [index, call] of calls.entries()) {
      const result = results[index] as ToolResult;
      input.push(toFunctionCallOutput(call.call_id, result));
      toolCalls.push({ iteration, toolUseId: call.call_id, name: call.name, input: inputs[index], result });
      if (result.ok && result.control?.terminate === true) terminate = true;
    }
    if (terminate) return finish("terminated");
    if (iteration >= maxIterations) return finish("max_iterations");
  }
}

async function ask(client: OpenAIClientLike, body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<OpenAIResponse> {
  let raw: unknown;
  try {
    raw = await client.responses.create(body as never, signal === undefined ? {} : { signal });
  } catch (error) {
    throwIfAborted(signal);
    throw error;
  }
  const parsed = Response.safeParse(raw);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(response)"}: ${issue.message}`).join("; ");
  throw new ModelResponseError(`the model answered with something that is not a Responses API response (${detail})`, parsed.error.issues);
}
