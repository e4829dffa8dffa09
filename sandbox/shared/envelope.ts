/**
 * @module sandbox/shared/envelope
 * Reads the guest's envelope (JSON text) into the channels a caller gets,
 * on either side of the boundary: the host builds a ToolResult from it
 * (src/host/channels.ts), and a worker answers a Code Mode script's fast
 * nested call from it (sandbox/worker/fast-lane.ts). One reader, so a fast
 * call's answer and the record the host keeps of it cannot disagree.
 *
 * `output` is what a model reads (the tool's text, or its structured data
 * as JSON), capped in characters and lines with a note saying what was cut;
 * images are checked for type and size. Nothing the tool made is trusted as
 * typed: the envelope goes through zod.
 */
import { GuestEnvelope, type Audio, type Control, type Image, type InputIssue, type Link, type Resource } from "./guest-envelope.js";
import type { OutcomeKind } from "./outcome-kinds.js";

export const IMAGE_MIME_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
export const AUDIO_MIME_TYPES: ReadonlySet<string> = new Set(["audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp4", "audio/ogg", "audio/webm", "audio/flac", "audio/aac"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type ChannelLimits = { maxModelOutputChars: number; maxModelOutputLines: number; maxImageBytes: number };

export type ReadEnvelope =
  | { ok: true; output: string; structured?: unknown; details?: unknown; control?: Control; images?: Image[]; audio?: Audio[]; resources?: Resource[]; links?: Link[]; logs?: string[] }
  | { ok: false; kind: Exclude<OutcomeKind, "ok">; message: string; issues?: InputIssue[]; stack?: string; logs?: string[] };

/** Cuts text for a model to the limits, saying how much was left out. */
export function capForModel(text: string, limits: ChannelLimits): string {
  let cut = text;
  let lines = 0;
  let index = -1;
  while ((index = cut.indexOf("\n", index + 1)) !== -1) {
    if (++lines >= limits.maxModelOutputLines) {
      cut = cut.slice(0, index);
      break;
    }
  }
  if (cut.length > limits.maxModelOutputChars) cut = cut.slice(0, limits.maxModelOutputChars);
  if (cut.length === text.length) return text;
  const totalLines = text.split("\n").length;
  const shownLines = cut.split("\n").length;
  return `${cut}\n[corral: output cut to ${cut.length} of ${text.length} characters, ${shownLines} of ${totalLines} lines; ask the tool for less]`;
}

const NOUN = { image: "an image", audio: "an audio clip", resource: "a resource" } as const;

/** Media and resource bytes are held to the image cap: one limit for what a result carries beside its text. */
function base64Problem(data: string, what: keyof typeof NOUN, limits: ChannelLimits): string | undefined {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return `${what} data is not base64`;
  const bytes = (data.length / 4) * 3 - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  if (bytes > limits.maxImageBytes) return `${NOUN[what]} of ${bytes} bytes is larger than ${limits.maxImageBytes} (maxImageBytes)`;
  return undefined;
}

function mediaProblem(media: { mimeType: string; data: string }, what: "image" | "audio", limits: ChannelLimits): string | undefined {
  const types = what === "image" ? IMAGE_MIME_TYPES : AUDIO_MIME_TYPES;
  if (!types.has(media.mimeType)) return `${what} type "${media.mimeType.slice(0, 40)}" is not one of ${[...types].join(", ")}`;
  return base64Problem(media.data, what, limits);
}

/** Why the media and resources of a result are unusable, or undefined. */
function contentProblem(e: { images?: Image[] | undefined; audio?: Audio[] | undefined; resources?: Resource[] | undefined; links?: Link[] | undefined }, limits: ChannelLimits): string | undefined {
  for (const image of e.images ?? []) {
    const problem = mediaProblem(image, "image", limits);
    if (problem !== undefined) return `a bad image: ${problem}`;
  }
  for (const clip of e.audio ?? []) {
    const problem = mediaProblem(clip, "audio", limits);
    if (problem !== undefined) return `bad audio: ${problem}`;
  }
  for (const item of [...(e.resources ?? []), ...(e.links ?? [])]) {
    if (!URL.canParse(item.uri)) return `a resource whose uri ${JSON.stringify(item.uri.slice(0, 100))} is not a URI`;
    const problem = "blob" in item ? base64Problem(item.blob, "resource", limits) : undefined;
    if (problem !== undefined) return `a bad resource: ${problem}`;
  }
  return undefined;
}

export function readEnvelope(envelopeJson: string, limits: ChannelLimits): ReadEnvelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelopeJson);
  } catch {
    return { ok: false, kind: "crash", message: "the sandbox answered with text that is not JSON" };
  }
  const envelope = GuestEnvelope.safeParse(parsed);
  if (!envelope.success) {
    const detail = envelope.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return { ok: false, kind: "tool_error", message: `the tool's result has an invalid shape (${detail}); check its images, audio, resources, links and control fields` };
  }
  const e = envelope.data;
  const logs = e.logs !== undefined && e.logs.length > 0 ? { logs: e.logs } : {};
  if (!e.ok) {
    const read: ReadEnvelope = { ok: false, kind: e.kind, message: e.message, ...logs };
    if (e.issues !== undefined) read.issues = e.issues;
    if (e.stack !== undefined) read.stack = e.stack;
    return read;
  }
  const problem = contentProblem(e, limits);
  if (problem !== undefined) return { ok: false, kind: "tool_error", message: `the tool returned ${problem}`, ...logs };
  const text = e.text ?? (e.structured === undefined ? "" : JSON.stringify(e.structured));
  const read: ReadEnvelope = { ok: true, output: capForModel(text, limits), ...logs };
  if (e.structured !== undefined) read.structured = e.structured;
  if (e.details !== undefined) read.details = e.details;
  if (e.control !== undefined) read.control = e.control;
  if (e.images !== undefined && e.images.length > 0) read.images = e.images;
  if (e.audio !== undefined && e.audio.length > 0) read.audio = e.audio;
  if (e.resources !== undefined && e.resources.length > 0) read.resources = e.resources;
  if (e.links !== undefined && e.links.length > 0) read.links = e.links;
  return read;
}
