/**
 * @module src/loop/anthropic
 * anthropicModel(client): the Model over the official `@anthropic-ai/sdk`
 * client. The client is typed by the little this file uses, so corral has no
 * runtime dependency on the SDK: the caller brings their own client.
 *
 * ```
 *  client.messages.stream(request, { signal })
 *     │ for await: each event ──▶ onEvent
 *     ▼
 *  stream.finalMessage() ──parseMessage (zod)──▶ Message
 * ```
 */
import { loopArguments } from "./arguments.js";
import { isStreamEvent, parseMessage, type Message, type MessageCreateParams } from "./messages.js";
import type { CreateMessageOptions, Model } from "./model.js";

/** The part of the SDK's MessageStream this adapter uses. */
export type AnthropicMessageStreamLike = AsyncIterable<unknown> & {
  /** Rejects with the stream's error (API error, abort) when there was one. */
  finalMessage(): Promise<unknown>;
};

/** The part of the SDK's `Anthropic` client this adapter uses. */
export type AnthropicClientLike = {
  messages: {
    /**
     * `body` is typed `never` so that any client fits: the SDK types its body
     * more narrowly than MessageCreateParams, which passes unknown blocks and
     * fields through. The one cast below is where our request meets the
     * SDK's type; the API validates the body itself.
     */
    stream(body: never, options?: { signal?: AbortSignal }): AnthropicMessageStreamLike;
  };
};

export function anthropicModel(given: AnthropicClientLike): Model {
  const client = loopArguments.client(given);
  return {
    async createMessage(request: MessageCreateParams, options: CreateMessageOptions): Promise<Message> {
      const stream = client.messages.stream(request as never, options.signal === undefined ? {} : { signal: options.signal });
      // Leaving this loop early (onEvent threw) ends the iterator, which
      // aborts the SDK's request; the throw then rejects this call.
      for await (const event of stream) {
        if (options.onEvent !== undefined && isStreamEvent(event)) options.onEvent(event);
      }
      // The SDK's iterator ends quietly when the stream failed between two
      // reads; finalMessage() is where that error surfaces.
      return parseMessage(await stream.finalMessage());
    },
  };
}
