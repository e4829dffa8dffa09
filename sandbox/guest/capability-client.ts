/**
 * @module sandbox/guest/capability-client
 * The guest's end of the capability relay: a request becomes JSON text
 * handed to the worker through one fire-and-forget callback, and a promise
 * the tool awaits; the worker later enters `settle(seq, answer)`. Nothing is
 * decided here: the host checks the effect, the grant and the gate, so a
 * tool that tampers with this context gains nothing. Requests left pending
 * when a call ends are dropped with it (their answers are ignored).
 */
import type { CapabilityAnswer, CapabilityRequest } from "../shared/capability-messages.js";
import type { CodeModeRequest } from "../shared/codemode-messages.js";
import { intrinsics as I } from "./intrinsics.js";
import { CapabilityError } from "../shared/capability-error.js";
import { markBlocked } from "./signals.js";

export { CapabilityError };

/** Hands a request to the worker; a Code Mode script's fast nested call may be answered at once (its answer's JSON text). */
export type CapabilitySend = (seq: number, requestJson: string) => unknown;

export type CapabilityClient = {
  /** A capability, or a Code Mode script's request (answered only for a script: see codemode-messages.ts). */
  request(request: CapabilityRequest | CodeModeRequest): Promise<unknown>;
  settle(seq: number, answerJson: string): void;
  /** The call ended: forget what it asked for. */
  reset(): void;
};

export function createCapabilityClient(send: CapabilitySend): CapabilityClient {
  let nextSeq = 1;
  const pending = new I.Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  function settle(seq: number, answerJson: string): void {
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
    if (answer.ok) waiting.resolve(answer.value);
    else {
      const refusal = new CapabilityError(answer.code, answer.message);
      if (answer.code === "blocked") markBlocked(refusal);
      waiting.reject(refusal);
    }
  }
  return {
    request(request) {
      const seq = nextSeq++;
      const json = I.JSONStringify(request);
      const promise = new I.Promise((resolve, reject) => {
        I.mapSet(pending, seq, { resolve, reject });
      });
      const now = send(seq, json);
      if (typeof now === "string") settle(seq, now);
      return promise;
    },
    settle: (seq, answerJson) => settle(seq, answerJson),
    reset() {
      I.mapClear(pending);
    },
  };
}
