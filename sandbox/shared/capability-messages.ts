/**
 * @module sandbox/shared/capability-messages
 * The capability relay's messages, types and zod schemas only (the host may
 * import this). A tool's `fetch`, `ctx.fs` or `ctx.state` call, or its talk-back
 * (talk-back.ts: progress, log, elicit, sample), becomes a
 * request that the guest hands the worker as JSON text, the worker sends the
 * host on the serve channel, and the host performs and answers:
 *
 * ```
 * tool ─ await ─▶ guest: CapabilityRequest (JSON) ─▶ worker ─ CapabilityRequestMessage ─▶ host
 *                                                                  effect declared? grant? gate?
 * tool ◀ resolve ─ guest ◀ CapabilityAnswer (JSON) ◀ worker ◀ CapabilityReplyMessage ─ performs
 * ```
 *
 * A payload (a request or response body, a file's bytes, a state value's
 * JSON text) never travels inside the request's or the answer's JSON: it
 * crosses the isolate's boundary once, as itself (an ArrayBuffer copied by
 * isolated-vm, or a string), beside a small JSON text that says what it is;
 * between the worker and the host it is one field of the message
 * (`WirePayload`: bytes as base64, made and read by Buffer, outside every
 * isolate). Its size is checked against the source's cap before it is
 * copied on (the worker: `PayloadCaps`; the host: the grant's caps, again).
 *
 * ```
 * guest ── (seq, requestJson, ArrayBuffer | string) ──▶ worker ── {requestJson, payload: WirePayload} ──▶ host
 * guest ◀─ (seq, answerJson, ArrayBuffer | string) ─── worker ◀─ {answerJson, payload: WirePayload} ─── host
 * ```
 *
 * While the host waits for its gate
 * it says so (CapabilityPauseMessage): the worker's deadline and the host's
 * watchdog stop until the answer, so an approver's minutes never count
 * against the call. `pausedMs` says how long the gate took.
 */
import { z } from "zod";
import { ElicitRequest, LogRequest, ProgressRequest, SampleRequest } from "./talk-back.js";

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);

/** A payload between the worker and the host: bytes (as base64, the JSON channel's only way) or text. */
export const WirePayload = z.union([z.strictObject({ bytesBase64: Base64 }), z.strictObject({ text: z.string() })]);
export type WirePayload = z.infer<typeof WirePayload>;

/** The bytes a wire payload of bytes stands for, from its base64 text's length alone (nothing decoded). */
export function base64Bytes(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((text.length * 3) / 4) - padding);
}

const HeaderPairs = z.array(z.tuple([z.string().max(1024), z.string().max(64 * 1024)])).max(512);

export const FetchRequest = z.strictObject({
  kind: z.literal("fetch"),
  url: z.string().max(64 * 1024),
  method: z.string().min(1).max(64),
  headers: HeaderPairs,
  /** Whether the request has a body: the call's payload (bytes). */
  body: z.boolean(),
  redirect: z.enum(["follow", "error", "manual"]),
});

export const FS_OPERATIONS = ["readFile", "readdir", "stat", "writeFile", "mkdir", "rm"] as const;
export const FsRequest = z.strictObject({
  kind: z.literal("fs"),
  op: z.enum(FS_OPERATIONS),
  path: z.string().max(8192),
  recursive: z.boolean().optional(),
  force: z.boolean().optional(),
});

export const STATE_OPERATIONS = ["get", "list", "set", "delete"] as const;
export const StateRequest = z.strictObject({
  kind: z.literal("state"),
  op: z.enum(STATE_OPERATIONS),
  key: z.string().max(64 * 1024).optional(),
  prefix: z.string().max(64 * 1024).optional(),
});

export const CapabilityRequest = z.discriminatedUnion("kind", [FetchRequest, FsRequest, StateRequest, ProgressRequest, LogRequest, ElicitRequest, SampleRequest]);
export type CapabilityRequest = z.infer<typeof CapabilityRequest>;

/**
 * The largest payload of each kind the worker lets out of an isolate for the
 * running call (the source's grant, sent with its task): past it the worker
 * answers `too_large` itself, before the payload is encoded or sent, so
 * corral's own copies of a payload are bounded by the caps, not by what a
 * tool made. The host checks the same caps again. A kind left out has no
 * grant: the host refuses it whatever its size.
 */
export const PayloadCaps = z.strictObject({
  /** capabilities.net.maxRequestBytes: a fetch's request body. */
  requestBytes: z.number().int().nonnegative().optional(),
  /** capabilities.fs.maxFileBytes: a file written. */
  fileBytes: z.number().int().nonnegative().optional(),
  /** capabilities.state.quotaBytes: a state value's JSON text. */
  stateBytes: z.number().int().nonnegative().optional(),
});
export type PayloadCaps = z.infer<typeof PayloadCaps>;

/** Why a capability request failed; the tool sees it as the error's `code`. */
export const CAPABILITY_ERROR_CODES = ["undeclared", "not_granted", "blocked", "refused", "too_large", "failed", "timeout", "invalid"] as const;
export type CapabilityErrorCode = (typeof CAPABILITY_ERROR_CODES)[number];

export type CapabilityAnswer = { ok: true; value: unknown } | { ok: false; code: CapabilityErrorCode; message: string };

/** Worker → host: a request of the call `callId`, numbered `seq` within it. */
export const CapabilityRequestMessage = z.strictObject({
  corral: z.literal(1),
  type: z.literal("capability"),
  callId: z.string().min(1).max(200),
  seq: z.number().int().nonnegative(),
  requestJson: z.string().max(96 * 1024 * 1024),
  payload: WirePayload.optional(),
  /** The tool whose call asked (the worker's task): the host judges a Code Mode lane call, which it did not open, as that tool's. */
  tool: z.string().max(200).optional(),
  /** The size of a payload the worker did not send (past the call's PayloadCaps, or no cap for its kind): the host refuses it. */
  payloadBytes: z.number().int().nonnegative().optional(),
});
export type CapabilityRequestMessage = z.infer<typeof CapabilityRequestMessage>;

/** Host → worker: the answer to request `seq` of call `callId`, as JSON text for the guest. */
export const CapabilityReplyMessage = z.strictObject({
  corral: z.literal(1),
  capability: z.strictObject({
    callId: z.string(),
    seq: z.number().int().nonnegative(),
    answerJson: z.string(),
    pausedMs: z.number().min(0),
    payload: WirePayload.optional(),
  }),
});
export type CapabilityReplyMessage = z.infer<typeof CapabilityReplyMessage>;

/**
 * Host → worker: the host is waiting on its gate for a request of `callId`;
 * the call's clock stops until the answer comes (which restarts it).
 */
export const CapabilityPauseMessage = z.strictObject({
  corral: z.literal(1),
  capabilityPause: z.strictObject({ callId: z.string() }),
});
export type CapabilityPauseMessage = z.infer<typeof CapabilityPauseMessage>;

export function isCapabilityRequestMessage(raw: unknown): boolean {
  return typeof raw === "object" && raw !== null && (raw as { type?: unknown }).type === "capability";
}

export function isCapabilityReplyMessage(raw: unknown): boolean {
  return typeof raw === "object" && raw !== null && ("capability" in raw || "capabilityPause" in raw);
}
