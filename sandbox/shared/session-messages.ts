/**
 * @module sandbox/shared/session-messages
 * The messages that cross the process boundary between the host and a
 * sandbox worker. Each worker runs one long tinypool task, `serve`, for its
 * whole life; calls then travel on that task's channel, one hop each way.
 * Tasks handed to a worker in the same turn of the host's event loop share
 * one message, and replies the worker has ready together share one: under
 * load the cost of a message (a write, a wake-up, a parse) is paid per batch.
 * tinypool keeps the lifecycle: it forks, kills and replaces the process,
 * and aborting the serve task is how the host kills a worker.
 *
 * ```
 *  host ──HostMessage {tasks}───────────▶ worker
 *  host ──CancelMessage / NestedMessage─▶ worker
 *  host ◀─WorkerMessage {ready | phase | replies | nested | lane | fast}── worker
 * ```
 */
import { z } from "zod";
import { LaneRecords } from "./fast-lane-schemas.js";
import { CallReply, Reply } from "./replies.js";
import { CallTask, Task } from "./tasks.js";

export const ServeTask = z.strictObject({ type: z.literal("serve") });
export type ServeTask = z.infer<typeof ServeTask>;

export const TaskEntry = z.strictObject({
  id: z.number().int().nonnegative(),
  task: Task,
  /**
   * The host's rule, carried with the task: the worker may hold this task's
   * reply back (to share a message with later ones) until this many ms after
   * the task arrived; past it the host's watchdog could fire. Left out: the
   * reply leaves at once.
   */
  replyWithinMs: z.number().nonnegative().optional(),
});
export type TaskEntry = z.infer<typeof TaskEntry>;

/** Host → worker, on the serve task's channel: tasks to run in this order, after those sent before. */
export const HostMessage = z.strictObject({
  corral: z.literal(1),
  tasks: z.array(TaskEntry).min(1),
});
export type HostMessage = z.infer<typeof HostMessage>;

/** Host → worker: drop task `id` if it has not started (its caller gave up). */
export const CancelMessage = z.strictObject({
  corral: z.literal(1),
  cancel: z.number().int().nonnegative(),
});
export type CancelMessage = z.infer<typeof CancelMessage>;

/**
 * Host → worker: run a Code Mode script's nested call of a tool now, beside
 * the script (the worker's running task), which waits for it. Nested calls
 * run one at a time, in the order sent, outside the worker's task queue: a
 * script's tool call never waits behind the script itself, even in a pool of
 * one worker. The host has judged the call already (exposure, quarantine,
 * effects, gate); the worker only runs it, under the tool's own limits.
 */
export const NestedMessage = z.strictObject({
  corral: z.literal(1),
  nested: z.strictObject({ id: z.number().int().nonnegative(), task: CallTask }),
});
export type NestedMessage = z.infer<typeof NestedMessage>;

export const ReplyEntry = z.strictObject({ id: z.number().int().nonnegative(), reply: Reply });
export type ReplyEntry = z.infer<typeof ReplyEntry>;

/**
 * The part of a running task the worker is in: a call or warm-up that must
 * first make its isolate runs the module's top level (`load`, under the load
 * time limit), then the call itself (`run`, under the call's). Sent only by
 * a task that loads, so the host's watchdog times each part by its own limit.
 */
export const TaskPhase = z.enum(["load", "run"]);
export type TaskPhase = z.infer<typeof TaskPhase>;

/** Worker → host: first `ready` (with the pid the watchdog watches), then replies, in task order. */
export const WorkerMessage = z.discriminatedUnion("type", [
  z.strictObject({ corral: z.literal(1), type: z.literal("ready"), pid: z.number().int().positive() }),
  z.strictObject({ corral: z.literal(1), type: z.literal("phase"), id: z.number().int().nonnegative(), phase: TaskPhase }),
  z.strictObject({ corral: z.literal(1), type: z.literal("replies"), replies: z.array(ReplyEntry).min(1) }),
  /** The answer to a NestedMessage of the same id (sent at once, never held back). */
  z.strictObject({ corral: z.literal(1), type: z.literal("nested"), id: z.number().int().nonnegative(), reply: CallReply }),
  /** A lane record the worker could not write to its journal (sandbox/shared/lane-journal.ts): sent here instead, after every line it did write. */
  LaneRecords,
  /** Read the running task's lane journal now: a lane call that may take a while started or ended (sandbox/worker/fast-lane.ts). */
  z.strictObject({ corral: z.literal(1), type: z.literal("journal") }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
