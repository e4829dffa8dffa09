/**
 * @module sandbox/worker/capability-relay
 * The worker's part in a capability request: it carries, it never decides.
 * A guest's request goes to the host on the serve channel as it is (JSON
 * text), its payload beside it (capability-payload.ts: past the call's cap,
 * only its size); the host's answer comes back to the isolate of the call
 * that asked, found by call id. An answer for a call that has ended is dropped. A
 * Code Mode script's fast lane sees its requests first (setLocalRelay) and
 * answers the tool calls the host pre-authorized without a message.
 */
import { CapabilityPauseMessage, CapabilityReplyMessage, isCapabilityReplyMessage, type CapabilityRequestMessage, type PayloadCaps, type WirePayload } from "../shared/capability-messages.js";
import { outgoingPayload } from "./capability-payload.js";
import { answerWebCrypto } from "./web-crypto-bridge.js";
import { answerCompression, endCompressionCall } from "./compression-bridge.js";

/** An answer made in this worker, with a payload beside its JSON (as the host's come). */
export type WorkerAnswer = { answerJson: string; payload?: WirePayload };

/** The call that asked: `deliver` an answer and its payload (which restarts a paused clock), or `pause` its clock. */
export type CapabilityCall = { deliver(seq: number, answerJson: string, pausedMs: number, payload?: WirePayload): void; pause(): void };

/**
 * Answers a call's requests in this worker where it can (a Code Mode
 * script's fast lane, sandbox/worker/fast-lane.ts). `now` runs inside the
 * guest's entry that asked: the answer's JSON at once, a promise of it, or
 * undefined (not taken: the request goes on to `relay`, after the entry).
 * `relay` answers undefined when it answered, or the CapabilityCall to send
 * the request to the host with.
 */
export type LocalRelay = {
  now(seq: number, requestJson: string): string | Promise<string> | undefined;
  relay(seq: number, requestJson: string, call: CapabilityCall): CapabilityCall | undefined;
};

const waiting = new Map<string, CapabilityCall>();
const local = new Map<string, LocalRelay>();
const calls = new Map<string, { tool: string; payloadCaps: PayloadCaps | undefined }>();

/** What the worker knows of the call `callId` from its task (its tool, its payload caps), until endCapabilityCall. */
export function openCapabilityCall(callId: string, task: { tool: string; payloadCaps?: PayloadCaps | undefined }): void {
  calls.set(callId, { tool: task.tool, payloadCaps: task.payloadCaps });
}

/** From now until `endLocalRelay`, `callId`'s requests go to `relay` first. */
export function setLocalRelay(callId: string, relay: LocalRelay): void {
  local.set(callId, relay);
}

export function endLocalRelay(callId: string): void {
  local.delete(callId);
}

/**
 * A request answered inside the guest's entry, if the call's local relay
 * takes it (see LocalRelay), or answered by this worker later: Web Crypto's
 * and compression's requests (web-crypto-bridge.ts, compression-bridge.ts)
 * never go to the host.
 */
export function answerNow(callId: string, seq: number, requestJson: string, payload?: unknown): string | Promise<string | WorkerAnswer> | undefined {
  return local.get(callId)?.now(seq, requestJson) ?? answerWebCrypto(requestJson, payload) ?? answerCompression(callId, requestJson, payload);
}

export function sendCapabilityRequest(callId: string, seq: number, requestJson: string, given: CapabilityCall, payload?: unknown): void {
  const relay = local.get(callId);
  const call = relay === undefined ? given : relay.relay(seq, requestJson, given);
  if (call !== undefined) askHost(callId, seq, requestJson, call, payload);
}

/** Sends the request (and its payload, within the call's cap) to the host; its answer goes to `call`. */
export function askHost(callId: string, seq: number, requestJson: string, call: CapabilityCall, payload?: unknown): void {
  waiting.set(callId, call);
  const known = calls.get(callId);
  const message: CapabilityRequestMessage = { corral: 1, type: "capability", callId, seq, requestJson, ...outgoingPayload(requestJson, payload, known?.payloadCaps) };
  if (known !== undefined) message.tool = known.tool;
  process.send?.(message);
}

/** The call ended: later answers to it are dropped. */
export function endCapabilityCall(callId: string): void {
  waiting.delete(callId);
  calls.delete(callId);
  endCompressionCall(callId);
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
  const { callId, seq, answerJson, pausedMs, payload } = parsed.data.capability;
  waiting.get(callId)?.deliver(seq, answerJson, pausedMs, payload);
  return true;
}
