/**
 * @module sandbox/worker/capability-relay
 * The worker's part in a capability request: it carries, it never decides.
 * A guest's request goes to the host on the serve channel as it is (JSON
 * text); the host's answer comes back to the isolate of the call that asked,
 * found by call id. An answer for a call that has ended is dropped.
 */
import { CapabilityPauseMessage, CapabilityReplyMessage, isCapabilityReplyMessage, type CapabilityRequestMessage } from "../shared/capability-messages.js";

/** The call that asked: `deliver` an answer (which restarts a paused clock), or `pause` its clock. */
export type CapabilityCall = { deliver(seq: number, answerJson: string, pausedMs: number): void; pause(): void };

const waiting = new Map<string, CapabilityCall>();

export function sendCapabilityRequest(callId: string, seq: number, requestJson: string, call: CapabilityCall): void {
  waiting.set(callId, call);
  const message: CapabilityRequestMessage = { corral: 1, type: "capability", callId, seq, requestJson };
  process.send?.(message);
}

/** The call ended: later answers to it are dropped. */
export function endCapabilityCall(callId: string): void {
  waiting.delete(callId);
}

/** Takes the message if it is a capability answer (true), delivering it to its call. */
export function receiveCapabilityReply(raw: unknown): boolean {
  if (!isCapabilityReplyMessage(raw)) return false;
  const pause = CapabilityPauseMessage.safeParse(raw);
  if (pause.success) {
    waiting.get(pause.data.capabilityPause.callId)?.pause();
    return true;
  }
  const parsed = CapabilityReplyMessage.safeParse(raw);
  if (!parsed.success) return true;
  const { callId, seq, answerJson, pausedMs } = parsed.data.capability;
  waiting.get(callId)?.deliver(seq, answerJson, pausedMs);
  return true;
}
