/**
 * @module src/loop/talk-back
 * A conversation's tools talking back. The model APIs have no progress,
 * log or question channel inside a turn, so those go to the program running
 * the loop: its handlers (onProgress, onLog, elicitUser: the options
 * host.call takes) and, for runConversation, `onEvent` as `tool_progress`
 * and `tool_log` events beside the model's stream events. Sampling has an
 * equivalent, the model the loop already talks to: unless the program
 * gives its own `sampleModel`, a tool's `ctx.sample` is one request to the
 * conversation's model (its `model`, the tool's messages, system prompt and
 * maxTokens), nothing of the conversation itself in it. A tool samples only
 * with the `sample_model` effect allowed and a `capabilities.sampling`
 * grant, within its budgets (host-side, as always).
 */
import type { SampleParams, TalkBack } from "../capabilities/talk-back.js";
import type { SampleAnswer } from "../../sandbox/shared/talk-back.js";
import type { ContentBlockParam, MessageParam, StreamEvent } from "./messages.js";
import type { Model } from "./model.js";

/** MCP's names for the stop reasons both model APIs share. */
const STOP_REASON: Record<string, string> = { end_turn: "endTurn", stop_sequence: "stopSequence", max_tokens: "maxTokens" };

/** The handlers for one turn's tool calls: the program's, and `onEvent`'s events for notices. */
export function loopTalkBack(given: TalkBack, onEvent: ((event: StreamEvent) => void) | undefined, sample: TalkBack["sampleModel"]): TalkBack {
  const out: TalkBack = {};
  if (given.onProgress !== undefined || onEvent !== undefined) {
    out.onProgress = (progress) => {
      given.onProgress?.(progress);
      onEvent?.({ ...progress, type: "tool_progress" });
    };
  }
  if (given.onLog !== undefined || onEvent !== undefined) {
    out.onLog = (log) => {
      given.onLog?.(log);
      onEvent?.({ ...log, type: "tool_log" });
    };
  }
  if (given.elicitUser !== undefined) out.elicitUser = given.elicitUser;
  const sampleModel = given.sampleModel ?? sample;
  if (sampleModel !== undefined) out.sampleModel = sampleModel;
  return out;
}

function anthropicContent(content: SampleParams["messages"][number]["content"]): ContentBlockParam {
  if (content.type === "text") return { type: "text", text: content.text };
  if (content.type === "image") return { type: "image", source: { type: "base64", media_type: content.mimeType as "image/png", data: content.data } };
  throw new Error("the Messages API takes no audio in a message");
}

/** ctx.sample as one Messages API request to the conversation's model. */
export function sampleWithModel(model: Model, modelName: string): NonNullable<TalkBack["sampleModel"]> {
  return async (request, context): Promise<SampleAnswer> => {
    const messages: MessageParam[] = request.messages.map((message) => ({ role: message.role, content: [anthropicContent(message.content)] }));
    const response = await model.createMessage(
      {
        model: modelName,
        max_tokens: request.maxTokens,
        messages,
        ...(request.systemPrompt !== undefined ? { system: request.systemPrompt } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.stopSequences !== undefined ? { stop_sequences: request.stopSequences } : {}),
      },
      context.signal !== undefined ? { signal: context.signal } : {},
    );
    const text = response.content.flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : [])).join("");
    const answer: SampleAnswer = { role: "assistant", content: { type: "text", text }, model: typeof response.model === "string" ? response.model : modelName };
    if (response.stop_reason !== null) answer.stopReason = STOP_REASON[response.stop_reason] ?? response.stop_reason;
    return answer;
  };
}

type ResponsesClient = { responses: { create(body: never, options?: { signal?: AbortSignal }): PromiseLike<unknown> } };

/** ctx.sample as one Responses API request (not stored) to the conversation's model. */
export function sampleWithResponses(client: ResponsesClient, modelName: string): NonNullable<TalkBack["sampleModel"]> {
  return async (request, context): Promise<SampleAnswer> => {
    const input = request.messages.map((message) => {
      const { content } = message;
      if (content.type === "audio") throw new Error("corral sends the Responses API no audio in a message");
      const part = content.type === "text"
        ? { type: message.role === "assistant" ? "output_text" : "input_text", text: content.text }
        : { type: "input_image", image_url: `data:${content.mimeType};base64,${content.data}` };
      return { role: message.role, content: [part] };
    });
    const body = {
      model: modelName,
      input,
      store: false,
      max_output_tokens: request.maxTokens,
      ...(request.systemPrompt !== undefined ? { instructions: request.systemPrompt } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    const raw = (await client.responses.create(body as never, context.signal !== undefined ? { signal: context.signal } : {})) as {
      model?: unknown;
      status?: unknown;
      output?: Array<{ type?: unknown; content?: Array<{ type?: unknown; text?: unknown }> }>;
    };
    const text = (raw.output ?? [])
      .filter((item) => item.type === "message")
      .flatMap((item) => item.content ?? [])
      .flatMap((part) => (part.type === "output_text" && typeof part.text === "string" ? [part.text] : []))
      .join("");
    const answer: SampleAnswer = { role: "assistant", content: { type: "text", text }, model: typeof raw.model === "string" ? raw.model : modelName };
    answer.stopReason = raw.status === "incomplete" ? "maxTokens" : "endTurn";
    return answer;
  };
}
