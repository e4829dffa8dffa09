/**
 * @module src/pool/session-types
 * What a worker session is given and what it tells its pool: a task it is
 * to run (with how its caller hears the outcome), its options and hooks.
 */
import type { Logger } from "pino";
import type { FastRecord } from "../../sandbox/shared/fast-lane-schemas.js";
import type { CallReply } from "../../sandbox/shared/replies.js";
import type { CallTask, Task } from "../../sandbox/shared/tasks.js";
import type { CapabilityHandler } from "./capability-channel.js";
import type { PoolOutcome } from "./death-outcome.js";
import type { LaneJournals } from "./lane-journal.js";
import type { WorkerSession } from "./session.js";

export type PendingTask = {
  id: number;
  task: Task;
  limits: { timeoutMs: number; memoryMb: number };
  /** Which warm isolate the task wants, for affinity. */
  key: string;
  settle: (outcome: PoolOutcome) => void;
  /** Taken back to run elsewhere (see takeBack): kept only to keep the FIFO in step with the worker's. */
  ghost?: true;
};

export type SessionHooks = {
  ready(session: WorkerSession): void;
  capability?: CapabilityHandler;
  /** Records of a script's fast nested calls (src/codemode records them). */
  fastRecords?(callId: string, records: FastRecord[]): void;
  /** A nested call answered (the router learns what the worker keeps warm). */
  nestedReplied?(session: WorkerSession, task: CallTask, reply: CallReply): void;
  /** The session is over; `orphans` were sent but never started. */
  ended(session: WorkerSession, orphans: PendingTask[]): void;
};

export type SessionOptions = { watchdogGraceMs: number; workerMemorySlackMb: number; loadTimeoutMs: number; logger: Logger; journals: LaneJournals };
