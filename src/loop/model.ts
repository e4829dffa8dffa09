/**
 * @module src/loop/model
 * The model as the loop sees it: one call per turn, in the shape of the
 * Anthropic Messages API. An adapter per SDK implements it (anthropic.ts for
 * `@anthropic-ai/sdk`); an SDK that does not stream just never calls
 * `onEvent`.
 */
import type { Message, MessageCreateParams, StreamEvent } from "./messages.js";

export type CreateMessageOptions = {
  /** Aborts the request; the promise then rejects. */
  signal?: AbortSignal;
  /**
   * Every stream event, in order, before the promise settles. A throw from it
   * aborts the request and rejects the promise with that error.
   */
  onEvent?: (event: StreamEvent) => void;
};

export type Model = {
  /**
   * Sends one request and answers the final assistant message. Rejects on
   * transport and API errors; a refusal or max_tokens stop is a message, not
   * an error.
   */
  createMessage(request: MessageCreateParams, options: CreateMessageOptions): Promise<Message>;
};
