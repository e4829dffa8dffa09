/**
 * @module sandbox/shared/guest-envelope
 * What the guest runtime writes inside the isolate, as the worker and the
 * host check it: the envelope of a call's answer (its schema; envelope.ts
 * reads it into channels), the manifest of a tool and the description of a
 * module. Nothing here trusts the guest: the host parses with zod.
 */
import { z } from "zod";
import type { OutcomeKind } from "./outcome-kinds.js";

/**
 * True for JSON data: null, booleans, finite numbers, strings, arrays and
 * plain objects of those. Checked in place, without rebuilding the value, so
 * a key such as "__proto__" (an own key after JSON.parse) is kept as it is.
 */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 1000) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => isJsonValue(item, depth + 1));
}

export const Json = z.custom<unknown>((value) => isJsonValue(value), "not JSON data");

export const Image = z.strictObject({
  mimeType: z.string(),
  data: z.string(),
});
export type Image = z.infer<typeof Image>;

/** An audio clip: the same shape as an image, checked against audio types. */
export const Audio = Image;
export type Audio = Image;

const Uri = z.string().min(1).max(4096);

/** A resource sent with a result (MCP's embedded resource): its text, or its bytes as base64 (`blob`). */
export const Resource = z.union([
  z.strictObject({ uri: Uri, mimeType: z.string().max(200).optional(), text: z.string() }),
  z.strictObject({ uri: Uri, mimeType: z.string().max(200).optional(), blob: z.string() }),
]);
export type Resource = z.infer<typeof Resource>;

/** A resource the caller may read itself (MCP's resource link). */
export const Link = z.strictObject({
  uri: Uri,
  name: z.string().min(1).max(500),
  title: z.string().max(500).optional(),
  description: z.string().max(4000).optional(),
  mimeType: z.string().max(200).optional(),
});
export type Link = z.infer<typeof Link>;

export const Control = z.strictObject({
  add_tools: z.array(z.string()).optional(),
  terminate: z.boolean().optional(),
});
export type Control = z.infer<typeof Control>;

export const InputIssue = z.strictObject({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
  code: z.string(),
});
export type InputIssue = z.infer<typeof InputIssue>;

/** The kinds a guest may answer with itself: a subset of OUTCOME_KINDS. */
export const GUEST_ERROR_KINDS = ["tool_error", "invalid_input", "output_too_large", "not_implemented", "unknown_tool", "blocked"] as const satisfies readonly OutcomeKind[];

/**
 * `structured` and `details` come out of JSON.parse on the host, so they can
 * only be JSON values already; walking them again with `Json` would cost a
 * second pass over every result for nothing.
 */
const ParsedJson = z.unknown();

export const GuestEnvelope = z.discriminatedUnion("ok", [
  z.strictObject({
    ok: z.literal(true),
    text: z.string().optional(),
    structured: ParsedJson.optional(),
    details: ParsedJson.optional(),
    control: Control.optional(),
    images: z.array(Image).optional(),
    audio: z.array(Audio).optional(),
    resources: z.array(Resource).optional(),
    links: z.array(Link).optional(),
    logs: z.array(z.string()).optional(),
  }),
  z.strictObject({
    ok: z.literal(false),
    kind: z.enum(GUEST_ERROR_KINDS),
    message: z.string(),
    issues: z.array(InputIssue).optional(),
    stack: z.string().optional(),
    logs: z.array(z.string()).optional(),
  }),
]);
export type GuestEnvelope = z.infer<typeof GuestEnvelope>;

/** One tool as the guest describes it; the host validates it strictly. */
export type GuestManifest = {
  name: unknown;
  description: unknown;
  inputSchema: unknown;
  outputSchema?: unknown;
  effects?: unknown;
  exposure?: unknown;
  limits?: unknown;
};

/** What `describe` answers: the tools, or the reason the module is unusable. */
export type GuestDescription =
  | { ok: true; tools: GuestManifest[] }
  | { ok: false; message: string; stack?: string };
