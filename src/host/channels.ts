/**
 * @module src/host/channels
 * Turns the guest's envelope (JSON text) into a ToolResult (read by
 * sandbox/shared/envelope.ts, which a worker's fast lane shares), keeping the
 * channels apart: `output` is what a model reads (the tool's text, or its
 * structured data as JSON), capped in size and lines with a note saying what
 * was cut; `structured` is for programs; `details` for screens, never for a
 * model; `control` for the loop; images are checked for type and size.
 * Nothing the tool made is trusted as typed: the envelope goes through zod.
 */
import type { Metrics } from "../../sandbox/shared/replies.js";
import { readEnvelope, type ChannelLimits } from "../../sandbox/shared/envelope.js";
import type { ErrorKind, ToolFailure, ToolResult } from "../result.js";

export { AUDIO_MIME_TYPES, IMAGE_MIME_TYPES, capForModel, type ChannelLimits } from "../../sandbox/shared/envelope.js";

export type CallInfo = { tool: string; callId: string; source?: string; version?: string; metrics?: Metrics; warm?: boolean };

const ZERO_METRICS: Metrics = { wallMs: 0, cpuMs: 0, heapBytes: 0 };

export function failure(info: CallInfo, kind: ErrorKind, message: string, extra: Partial<ToolFailure["error"]> = {}): ToolFailure {
  return { ok: false, ...info, metrics: info.metrics ?? ZERO_METRICS, error: { kind, message, ...extra } };
}

export function fromEnvelope(info: CallInfo & { metrics: Metrics }, envelopeJson: string, limits: ChannelLimits): ToolResult {
  const read = readEnvelope(envelopeJson, limits);
  const logs = read.logs !== undefined ? { logs: read.logs } : {};
  if (!read.ok) {
    const extra: Partial<ToolFailure["error"]> = {};
    if (read.issues !== undefined) extra.issues = read.issues;
    if (read.stack !== undefined) extra.stack = read.stack;
    return { ...failure(info, read.kind, read.message, extra), ...logs };
  }
  const result: ToolResult = { ok: true, ...info, output: read.output, ...logs };
  if (read.structured !== undefined) result.structured = read.structured;
  if (read.details !== undefined) result.details = read.details;
  if (read.control !== undefined) result.control = read.control;
  if (read.images !== undefined) result.images = read.images;
  if (read.audio !== undefined) result.audio = read.audio;
  if (read.resources !== undefined) result.resources = read.resources;
  if (read.links !== undefined) result.links = read.links;
  return result;
}
