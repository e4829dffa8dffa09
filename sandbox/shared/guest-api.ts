/**
 * @module sandbox/shared/guest-api
 * The guest runtime's API: the one declared type that the runtime's
 * completion value satisfies (sandbox/guest/runtime.ts) and that the worker
 * calls through typed wrappers (sandbox/worker/guest-bridge.ts). Every value
 * crossing it is plain data copied by isolated-vm; an answer names its kind
 * itself, so nothing on the worker's side reads the guest's text to learn it.
 */
import { GUEST_ERROR_KINDS } from "./guest-envelope.js";

export const GUEST_ANSWER_KINDS = ["ok", ...GUEST_ERROR_KINDS] as const;
export type GuestAnswerKind = (typeof GUEST_ANSWER_KINDS)[number];

/**
 * What the guest answers a call or a describe with: its kind, and the
 * envelope (or manifests) as JSON text. `refused`: the failure was V8's own
 * RangeError for an allocation it refused (evidence for classify.ts).
 */
export type GuestAnswer = { kind: GuestAnswerKind; text: string; refused?: boolean };

/** What the guest answers a load with: "" when the module's tools are kept, else why not (clipped). */
export type GuestLoadAnswer = { ok: true } | { ok: false; message: string; stack?: string; threw: boolean };

export type StartRequest = {
  seq: number;
  tool: string;
  inputJson: string;
  callId: string;
  maxBytes: number;
  maxDepth: number;
};

export interface GuestApi {
  /** Runs the bundle's top level (a function of module, exports, require) and keeps its tools. Never throws. */
  load(factory: Function): GuestLoadAnswer;
  /** The manifests of the loaded tools ("ok") or why they cannot be described ("tool_error", text is the message). */
  describe(maxBytes: number): GuestAnswer;
  /** Starts a call: its answer if it settled at once, else null (poll, or wait for `done(seq)`). */
  start(request: StartRequest): GuestAnswer | null;
  /**
   * The answer of call `seq` once it settled (handing it over ends the call);
   * "pending" while it waits on promises or timers; null if no such call is
   * running (its start never got as far as waiting: corral's own failure).
   */
  poll(seq: number): GuestAnswer | "pending" | null;
  /** Runs the timers that came due; answers the delay until the next one, or -1 for none. */
  fire(): number;
  /** Runs the runtime's own paths once on a tool of its own (idle time only). */
  warm(): void;
  /** The host's answer (JSON text) to capability request `seq` of the running call, and its payload if it has one; the tool resumes in this entry. */
  capability(seq: number, answerJson: string, payload?: GuestPayload): void;
}

/** The callbacks the worker lends the guest, taken off the global object before any tool code runs. */
export type GuestLent = {
  /** Wake the guest's timers in `delayMs` (fire-and-forget). */
  __corral_wake: (delayMs: number) => void;
  /** Call `seq` settled after waiting: ask `poll`. */
  __corral_done: (seq: number) => void;
  /** `count` bytes from the worker's CSPRNG as a binary string (crypto.getRandomValues, randomUUID). */
  __corral_random: (count: number) => string;
  /** TextDecoder's encodings beyond UTF-8: a label's encoding name, or "" (sandbox/guest/web/encodings.ts). */
  __corral_encoding: (label: string) => string;
  /** Decodes one chunk (an ArrayBuffer copy) of decoder `handle`: its text, or an error code. */
  __corral_decode: (handle: number, encoding: string, flags: number, bytes: ArrayBuffer, stream: boolean) => string | number;
  /** Runs the URL script (whatwg-url) in this context once, leaving its exports under `__corral_url_module`. */
  __corral_load_url: () => void;
  /** Runs the streams script (web-streams-polyfill) in this context once, leaving its exports under `__corral_streams_module`. */
  __corral_load_streams: () => void;
  /** Runs the script of the web globals built on first use in this context once, leaving its function under `__corral_lazy_module`. */
  __corral_load_web: () => void;
  /** Sends capability request `seq` (JSON text, and its payload if it has one) to the host (fire-and-forget; the answer comes through `capability`). */
  __corral_capability: (seq: number, requestJson: string, payload?: GuestPayload) => void;
};

/**
 * A capability's payload as it crosses the isolate's boundary, copied once by
 * isolated-vm: bytes (a body, a file) or text (a state value's JSON). Never
 * inside a JSON text (see capability-messages.ts).
 */
export type GuestPayload = ArrayBuffer | Uint8Array | string;

/** Checks an answer copied out of the isolate: the worker trusts its shape only after this. */
export function isGuestAnswer(value: unknown): value is GuestAnswer {
  if (typeof value !== "object" || value === null) return false;
  const { kind, text } = value as { kind?: unknown; text?: unknown };
  return typeof text === "string" && (GUEST_ANSWER_KINDS as readonly unknown[]).includes(kind);
}
