/**
 * @module src/capabilities/call-notices
 * What the broker keeps of a running call (CallState), and the call's
 * notices: progress and log messages, which need no effect (they reach only
 * the caller who made the call, with what the tool could have put in its
 * answer), go to the caller's handler and the host's events within the
 * call's count, and are always answered `ok`, so a notice never fails a
 * tool. They are audited once per call and kind: a use per notice would
 * cost a write each.
 */
import type { Logger } from "pino";
import { MAX_NOTICES_PER_CALL, type LogRequest, type ProgressRequest } from "../../sandbox/shared/talk-back.js";
import type { GateContext } from "../gate/index.js";
import type { CapabilityUse } from "./capability-store.js";
import type { TalkBack, ToolLog, ToolProgress } from "./talk-back.js";

export type OpenCall = {
  callId: string;
  source: string;
  tool: string;
  effects: readonly string[] | null;
  timeoutMs: number;
  /** The call's signal, caller and asker, as the gate is told them. */
  gate: GateContext;
  /** Where the call's progress, log messages, questions and samples go (its caller's handlers). */
  talkBack: TalkBack;
};

export type CallState = OpenCall & {
  startedAt: number;
  pausedMs: number;
  requests: number;
  uses: number;
  /** Progress and log notices, each kind's count and bytes, for the one audit record a call's notices get. */
  notices: { progress: { count: number; bytes: number }; log: { count: number; bytes: number } };
  sampledTokens: number;
};

/** A tool's notice, for the host's events. */
export type Notice = { kind: "progress"; progress: ToolProgress } | { kind: "log"; log: ToolLog };

export function callState(call: OpenCall): CallState {
  return { ...call, startedAt: performance.now(), pausedMs: 0, requests: 0, uses: 0, notices: { progress: { count: 0, bytes: 0 }, log: { count: 0, bytes: 0 } }, sampledTokens: 0 };
}

export type NoticeDeps = { logger: Logger; announce: ((notice: Notice) => void) | undefined };

/** Runs the caller's handler and the host's announcement; a handler that throws is logged, never the tool's problem. */
function deliver(logger: Logger, ...steps: (() => void)[]): void {
  for (const step of steps) {
    try {
      step();
    } catch (error) {
      logger.error({ err: error }, "a progress or log handler threw; the notice was dropped for it");
    }
  }
}

export function takeNotice(call: CallState, request: ProgressRequest | LogRequest, deps: NoticeDeps): { ok: true; value: null } {
  const counted = call.notices[request.kind];
  const total = call.notices.progress.count + call.notices.log.count;
  counted.count++;
  if (total >= MAX_NOTICES_PER_CALL) {
    if (total === MAX_NOTICES_PER_CALL) deps.logger.warn({ callId: call.callId, tool: call.tool, source: call.source }, `a call sent ${MAX_NOTICES_PER_CALL} progress and log notices; later ones are dropped`);
    return { ok: true, value: null };
  }
  const from = { callId: call.callId, tool: call.tool, source: call.source };
  if (request.kind === "progress") {
    const progress: ToolProgress = { ...from, progress: request.progress };
    if (request.total !== undefined) progress.total = request.total;
    if (request.message !== undefined) progress.message = request.message;
    counted.bytes += request.message?.length ?? 0;
    deliver(deps.logger, () => call.talkBack.onProgress?.(progress), () => deps.announce?.({ kind: "progress", progress }));
  } else {
    const log: ToolLog = { ...from, level: request.level, data: JSON.parse(request.dataJson) };
    if (request.logger !== undefined) log.logger = request.logger;
    counted.bytes += request.dataJson.length;
    deliver(deps.logger, () => call.talkBack.onLog?.(log), () => deps.announce?.({ kind: "log", log }));
  }
  return { ok: true, value: null };
}

/** The audit records of a call's notices: one per kind it sent. */
export function noticeUses(call: CallState): Array<Pick<CapabilityUse, "effect" | "operation" | "target" | "outcome" | "bytes" | "message">> {
  const dropped = Math.max(0, call.notices.progress.count + call.notices.log.count - MAX_NOTICES_PER_CALL);
  const uses = [];
  for (const kind of ["progress", "log"] as const) {
    const { count, bytes } = call.notices[kind];
    if (count === 0) continue;
    const use = { effect: "-", operation: kind, target: `${count} ${count === 1 ? "notice" : "notices"}`, outcome: "ok" as const, bytes };
    uses.push(dropped > 0 ? { ...use, message: `${dropped} notices past the call's ${MAX_NOTICES_PER_CALL} were dropped` } : use);
  }
  return uses;
}
