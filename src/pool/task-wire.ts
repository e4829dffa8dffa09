/**
 * @module src/pool/task-wire
 * A task as it leaves for one worker: a bundle's inline code goes only to a
 * worker that lacks it. The worker keeps what it was sent in a window that
 * this one mirrors (sandbox/shared/bundle-window.ts), updated as the message
 * leaves, so a task taken back unsent changes nothing. The task itself keeps
 * its code, should it be run elsewhere after all. A Code Mode script's fast
 * lane gets its journal here, as the script leaves.
 */
import { BundleWindow } from "../../sandbox/shared/bundle-window.js";
import type { FastLane } from "../../sandbox/shared/fast-lane-schemas.js";
import type { TaskEntry } from "../../sandbox/shared/session-messages.js";
import type { Task } from "../../sandbox/shared/tasks.js";

export class TaskWire {
  readonly #bundlesSent = new BundleWindow<true>();
  readonly #laneLeaves: (id: number, lane: FastLane) => void;

  /** `laneLeaves`: a script's lane (a copy: the task keeps its own) is leaving with task `id`. */
  constructor(laneLeaves: (id: number, lane: FastLane) => void) {
    this.#laneLeaves = laneLeaves;
  }

  /** `entry` as it goes to this worker (itself when nothing changes: a warm call's task is not copied). */
  onTheWire(entry: TaskEntry): TaskEntry {
    const { task } = entry;
    const bundle = this.#bundle(task.bundle);
    // A fast lane's bundles go by the same window.
    const lane: FastLane | undefined =
      task.type === "call" && task.fastLane !== undefined ? { ...task.fastLane, tools: task.fastLane.tools.map((tool) => ({ ...tool, bundle: this.#bundle(tool.bundle) })) } : undefined;
    if (lane !== undefined) this.#laneLeaves(entry.id, lane);
    if (bundle === task.bundle && lane === undefined) return entry;
    const wired = { ...task, bundle } as Task;
    if (lane !== undefined && wired.type === "call") wired.fastLane = lane;
    return { ...entry, task: wired };
  }

  #bundle<B extends Task["bundle"]>(bundle: B): B {
    if (bundle.code === undefined || this.#bundlesSent.admit(bundle.hash, true)) return bundle;
    const { code: _sent, ...withoutCode } = bundle;
    return withoutCode as B;
  }
}
