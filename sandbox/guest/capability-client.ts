/**
 * @module sandbox/guest/capability-client
 * The guest's end of the capability relay: a request becomes JSON text
 * handed to the worker through one fire-and-forget callback, and a promise
 * the tool awaits; the worker later enters `settle(seq, answer, payload)`.
 * A payload (bytes or text) goes beside the JSON, never inside it, so it is
 * copied out or in once, by isolated-vm, and never re-encoded here. Nothing is
 * decided here: the host checks the effect, the grant and the gate, so a
 * tool that tampers with this context gains nothing. Requests left pending
 * when a call ends are dropped with it (their answers are ignored).
 */
import type { CapabilityAnswer, CapabilityRequest } from "../shared/capability-messages.js";
import type { CodeModeRequest } from "../shared/codemode-messages.js";
import type { GuestPayload } from "../shared/guest-api.js";
import { intrinsics as I } from "./intrinsics.js";
import { CapabilityError } from "../shared/capability-error.js";
import { markBlocked } from "./signals.js";

export { CapabilityError };

/** Hands a request to the worker; a Code Mode script's fast nested call may be answered at once (its answer's JSON text). */
export type CapabilitySend = (seq: number, requestJson: string, payload: GuestPayload | undefined) => unknown;

/** An answer's value and the payload that came with it (a body, a file's bytes: an ArrayBuffer; a state value: its JSON text). */
export type Exchanged = { value: unknown; payload: ArrayBuffer | string | undefined };

export type CapabilityClient = {
  /** A capability, or a Code Mode script's request (answered only for a script: see codemode-messages.ts). */
  request(request: CapabilityRequest | CodeModeRequest): Promise<unknown>;
  /** A capability request with its payload, answered with the answer's. */
  exchange(request: CapabilityRequest, payload?: GuestPayload): Promise<Exchanged>;
  settle(seq: number, answerJson: string, payload?: unknown): void;
  /** The call ended: forget what it asked for. */
  reset(): void;
};

export function createCapabilityClient(send: CapabilitySend): CapabilityClient {
  let nextSeq = 1;
  const pending = new I.Map<number, { resolve: (value: Exchanged) => void; reject: (error: unknown) => void }>();
  function settle(seq: number, answerJson: string, payload?: unknown): void {
    const waiting = I.mapGet(pending, seq);
    if (waiting === undefined) return;
    I.mapDelete(pending, seq);
    let answer: CapabilityAnswer;
    try {
      answer = I.JSONParse(answerJson) as CapabilityAnswer;
    } catch {
      waiting.reject(new CapabilityError("failed", "the host's answer could not be read"));
      return;
    }
    if (answer.ok) waiting.resolve({ value: answer.value, payload: payload instanceof ArrayBuffer || typeof payload === "string" ? payload : undefined });
    else {
      const refusal = new CapabilityError(answer.code, answer.message);
      if (answer.code === "blocked") markBlocked(refusal);
      waiting.reject(refusal);
    }
  }
  function start(request: CapabilityRequest | CodeModeRequest, payload: GuestPayload | undefined, resolve: (value: Exchanged) => void, reject: (error: unknown) => void): void {
    const seq = nextSeq++;
    I.mapSet(pending, seq, { resolve, reject });
    const now = send(seq, I.JSONStringify(request), payload);
    if (typeof now === "string") settle(seq, now);
  }
  return {
    request: (request) => new I.Promise((resolve, reject) => start(request, undefined, (exchanged) => resolve(exchanged.value), reject)),
    exchange: (request, payload) => new I.Promise<Exchanged>((resolve, reject) => start(request, payload, resolve, reject)),
    settle: (seq, answerJson, payload) => settle(seq, answerJson, payload),
    reset() {
      I.mapClear(pending);
    },
  };
}
