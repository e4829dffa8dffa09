/**
 * @module src/pool/capability-channel
 * A capability request of the call a worker runs, seen from its session:
 * performed by the host's handler (src/capabilities/broker.ts, src/codemode),
 * answered on the worker's channel. While the handler waits on the gate the
 * host's watchdog stops (and the worker is told to stop its deadline); both
 * restart with what they had left when the answer goes out. A Code Mode
 * script's nested calls go to its session's NestedCalls from here.
 */
import type { Logger } from "pino";
import { CapabilityRequestMessage, type CapabilityPauseMessage, type CapabilityReplyMessage, type WirePayload } from "../../sandbox/shared/capability-messages.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";
import type { NestedCalls, NestedOutcome } from "./nested-calls.js";

/**
 * What a capability handler may do besides answering: `paused()` as its gate
 * starts to wait (the call's clocks stop), and `nested(task)` to run a Code
 * Mode script's tool call in the script's own worker (nested-calls.ts).
 */
export type CapabilityHooks = { paused(): void; nested(task: CallTask): Promise<NestedOutcome> };

/** A handler's answer: JSON text for the guest, the payload beside it (a body, a file, a state value), and the time its gate waited. */
export type CapabilityAnswerOut = { answerJson: string; pausedMs: number; payload?: WirePayload };

/** Performs a tool's capability request. */
export type CapabilityHandler = (message: CapabilityRequestMessage, hooks: CapabilityHooks) => Promise<CapabilityAnswerOut>;

/** The clock of the task the worker runs (its session's schedule: worker-schedule.ts): stopped while a gate waits. */
export type HeadClock = {
  /** Stops it; answers what it had left (undefined if none runs). */
  pause(): number | undefined;
  /** Runs it again with `leftMs` (what `pause` answered), unless that task was answered meanwhile. */
  resume(leftMs: number): void;
};

export type CapabilityChannelDeps = {
  handler: CapabilityHandler | undefined;
  clock: HeadClock;
  nested: NestedCalls;
  logger: Logger;
  /** Whether the worker still runs the call `callId` (its answer would reach it). */
  running(callId: string): boolean;
  /** Writes to the worker, unless it has ended. */
  send(message: CapabilityPauseMessage | CapabilityReplyMessage): void;
};

/** Serves one capability request message of the worker (dropped if malformed or nobody handles capabilities). */
export function serveCapability(raw: unknown, deps: CapabilityChannelDeps): void {
  const parsed = CapabilityRequestMessage.safeParse(raw);
  const { handler } = deps;
  if (!parsed.success || handler === undefined) return;
  const request = parsed.data;
  const isRunning = () => deps.running(request.callId);
  let pausedLeftMs: number | undefined;
  const paused = () => {
    if (!isRunning() || pausedLeftMs !== undefined) return;
    pausedLeftMs = deps.clock.pause();
    if (pausedLeftMs !== undefined) deps.send({ corral: 1, capabilityPause: { callId: request.callId } });
  };
  const nested = (task: CallTask) => (isRunning() ? deps.nested.run(task) : Promise.resolve<NestedOutcome>({ ok: false, kind: "cancelled", message: "the script has ended" }));
  handler(request, { paused, nested }).then(
    ({ answerJson, pausedMs, payload }) => {
      if (pausedLeftMs !== undefined && isRunning()) deps.clock.resume(pausedLeftMs);
      const capability: CapabilityReplyMessage["capability"] = { callId: request.callId, seq: request.seq, answerJson, pausedMs };
      if (payload !== undefined) capability.payload = payload;
      deps.send({ corral: 1, capability });
    },
    (error: unknown) => deps.logger.error({ err: error, callId: request.callId }, "a capability request failed in the host"),
  );
}
