/**
 * @module sandbox/shared/capability-messages
 * The capability relay's messages, types and zod schemas only (the host may
 * import this). A tool's `fetch`, `ctx.fs` or `ctx.state` call becomes a
 * request that the guest hands the worker as JSON text, the worker sends the
 * host on the serve channel, and the host performs and answers:
 *
 * ```
 * tool ─ await ─▶ guest: CapabilityRequest (JSON) ─▶ worker ─ CapabilityRequestMessage ─▶ host
 *                                                                  effect declared? grant? gate?
 * tool ◀ resolve ─ guest ◀ CapabilityAnswer (JSON) ◀ worker ◀ CapabilityReplyMessage ─ performs
 * ```
 *
 * Bytes travel as base64 inside the JSON. While the host waits for its gate
 * it says so (CapabilityPauseMessage): the worker's deadline and the host's
 * watchdog stop until the answer, so an approver's minutes never count
 * against the call. `pausedMs` says how long the gate took.
 */
import { z } from "zod";

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
const HeaderPairs = z.array(z.tuple([z.string().max(1024), z.string().max(64 * 1024)])).max(512);

export const FetchRequest = z.strictObject({
  kind: z.literal("fetch"),
  url: z.string().max(64 * 1024),
  method: z.string().min(1).max(64),
  headers: HeaderPairs,
  bodyBase64: Base64.nullable(),
  redirect: z.enum(["follow", "error", "manual"]),
});

export const FS_OPERATIONS = ["readFile", "readdir", "stat", "writeFile", "mkdir", "rm"] as const;
export const FsRequest = z.strictObject({
  kind: z.literal("fs"),
  op: z.enum(FS_OPERATIONS),
  path: z.string().max(8192),
  dataBase64: Base64.optional(),
  recursive: z.boolean().optional(),
  force: z.boolean().optional(),
});

export const STATE_OPERATIONS = ["get", "list", "set", "delete"] as const;
export const StateRequest = z.strictObject({
  kind: z.literal("state"),
  op: z.enum(STATE_OPERATIONS),
  key: z.string().max(64 * 1024).optional(),
  prefix: z.string().max(64 * 1024).optional(),
  valueJson: z.string().max(64 * 1024 * 1024).optional(),
});

export const CapabilityRequest = z.discriminatedUnion("kind", [FetchRequest, FsRequest, StateRequest]);
export type CapabilityRequest = z.infer<typeof CapabilityRequest>;

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
