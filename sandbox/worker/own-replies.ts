/**
 * @module sandbox/worker/own-replies
 * Replies the worker makes without a guest's answer: a task that ran
 * nothing, and a failure of the worker's own code. Apart from WorkerCore
 * because entry.ts makes them too (a call cancelled before it started), and
 * because they must read alike wherever they are made: corral's own failure
 * is said so, and never counted against the tool.
 */
import type { Reply } from "../shared/replies.js";
import type { Task } from "../shared/tasks.js";
import { zeroMetrics } from "./run-result.js";

/** The words for a throw of the worker's own code (not counted against the tool). */
export function ownFailure(error: unknown): string {
  return `corral's sandbox worker failed (not counted against the tool): ${error instanceof Error ? error.message : "unknown error"}`;
}

/** A reply of the task's own type that ran nothing. */
export function failed(task: Task, kind: Reply["kind"], message: string): Reply {
  if (task.type === "call") return { type: "call", kind, message, metrics: zeroMetrics(), warm: false };
  return { type: task.type, kind, message, metrics: zeroMetrics() };
}
