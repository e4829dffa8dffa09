/**
 * @module src/host/channels
 * Turns the guest's envelope (JSON text) into a ToolResult, keeping the
 * channels apart: `output` is what a model reads (the tool's text, or its
 * structured data as JSON), capped in size and lines with a note saying what
 * was cut; `structured` is for programs; `details` for screens, never for a
 * model; `control` for the loop; images are checked for type and size.
 * Nothing the tool made is trusted as typed: the envelope goes through zod.
 */
import { GuestEnvelope, type Metrics } from "../../sandbox/protocol.js";
import type { ErrorKind, ToolFailure, ToolResult } from "../result.js";

export const IMAGE_MIME_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type ChannelLimits = { maxModelOutputChars: number; maxModelOutputLines: number; maxImageBytes: number };

export type CallInfo = { tool: string; callId: string; source?: string; version?: string; metrics?: Metrics; warm?: boolean };

const ZERO_METRICS: Metrics = { wallMs: 0, cpuMs: 0, heapBytes: 0 };

export function failure(info: CallInfo, kind: ErrorKind, message: string, extra: Partial<ToolFailure["error"]> = {}): ToolFailure {
  return { ok: false, ...info, metrics: info.metrics ?? ZERO_METRICS, error: { kind, message, ...extra } };
}

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

function imageProblem(image: { mimeType: string; data: string }, limits: ChannelLimits): string | undefined {
  if (!IMAGE_MIME_TYPES.has(image.mimeType)) return `image type "${image.mimeType.slice(0, 40)}" is not one of ${[...IMAGE_MIME_TYPES].join(", ")}`;
  if (image.data.length % 4 !== 0 || !BASE64.test(image.data)) return "image data is not base64";
  const bytes = (image.data.length / 4) * 3 - (image.data.endsWith("==") ? 2 : image.data.endsWith("=") ? 1 : 0);
  if (bytes > limits.maxImageBytes) return `an image of ${bytes} bytes is larger than ${limits.maxImageBytes}`;
  return undefined;
}

export function fromEnvelope(info: CallInfo & { metrics: Metrics }, envelopeJson: string, limits: ChannelLimits): ToolResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelopeJson);
  } catch {
    return failure(info, "crash", "the sandbox answered with text that is not JSON");
  }
  const envelope = GuestEnvelope.safeParse(parsed);
  if (!envelope.success) {
    const detail = envelope.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return failure(info, "tool_error", `the tool's result has an invalid shape (${detail}); check its images and control fields`);
  }
  const e = envelope.data;
  const logs = e.logs !== undefined && e.logs.length > 0 ? { logs: e.logs } : {};
  if (!e.ok) {
    const extra: Partial<ToolFailure["error"]> = {};
    if (e.issues !== undefined) extra.issues = e.issues;
    if (e.stack !== undefined) extra.stack = e.stack;
    return { ...failure(info, e.kind, e.message, extra), ...logs };
  }
  for (const image of e.images ?? []) {
    const problem = imageProblem(image, limits);
    if (problem !== undefined) return { ...failure(info, "tool_error", `the tool returned a bad image: ${problem}`), ...logs };
  }
  const text = e.text ?? (e.structured === undefined ? "" : JSON.stringify(e.structured));
  const result: ToolResult = { ok: true, ...info, output: capForModel(text, limits), ...logs };
  if (e.structured !== undefined) result.structured = e.structured;
  if (e.details !== undefined) result.details = e.details;
  if (e.control !== undefined) result.control = e.control;
  if (e.images !== undefined && e.images.length > 0) result.images = e.images;
  return result;
}
