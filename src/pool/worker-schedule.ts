/**
 * @module src/pool/worker-schedule
 * One worker's schedule, decided apart from its channel and its timers: the
 * tasks given to it in its own order (worker-queue.ts), the running task's
 * watchdog as a deadline, and what each event comes to. Pure: the clock is
 * its owner's (`now`: performance.now() in the session, plain numbers in
 * worker-schedule.test.ts), read only as a deadline is set or compared;
 * decisions go out as calls on `ScheduleActions`, and `wakeAt` says when the
 * owner is to call `tick`. The session (session.ts) carries them out: it
 * writes to the worker, aborts its serve task, settles callers and keeps
 * one real timer at `wakeAt`.
 *
 * ```
 * dispatch ─▶ queue + outbox (takeOutbox: once a turn) ─▶ a first task is the head: deadline = now + limit + grace
 * phase(load | run) ─▶ the head's deadline again from now: loadTimeoutMs or its limit, + grace
 * pause ─▶ no deadline (what was left is answered) ─▶ resume(left) ─▶ now + left
 * tick, at or past the deadline ─▶ kill("watchdog")
 * replies(id…) ─▶ answered(head), each in turn ─▶ the next head's deadline from the message's time
 *          └ not the head's id ─▶ kill("protocol")
 * cancel ─▶ running: kill("cancel") · waiting: settle(cancelled) + sendCancel · unsent: settle(cancelled)
 * takeBack ─▶ the tasks not started (sent ones stay as ghosts, sendCancel)
 * stop(reason) ─▶ kill, the first time only: no decision after it (no deadline, no take-back)
 * exit ─▶ nothing more is decided ─▶ drain: the head and the orphans (ghosts run elsewhere)
 * ```
 * The worker runs its tasks strictly in order, so the head started when the
 * task before it was answered: the host times it from then, on its own
 * clock, with no message from the worker. That clock must never run
 * backwards.
 */
import type { Reply } from "../../sandbox/shared/replies.js";
import type { ReplyEntry, TaskEntry } from "../../sandbox/shared/session-messages.js";
import { HOLD_BACK_GRACE_SHARE } from "../../sandbox/shared/tuning.js";
import type { PoolOutcome, StopReason } from "./death-outcome.js";
import type { PendingTask } from "./session-types.js";
import { WorkerQueue } from "./worker-queue.js";

export type WorkerScheduleOptions = {
  /** What the host allows past a task's own limit before it kills the worker. */
  watchdogGraceMs: number;
  /** The limit of a module's top level, for a task that must first load its module. */
  loadTimeoutMs: number;
  /** The clock deadlines are on, in ms. */
  now: () => number;
};

/** What the schedule decides, for its owner to carry out (each is called at once, inside the event that decided it). */
export interface ScheduleActions {
  /** The worker answered the head: it settles with `reply` (the next task is the head now). */
  answered(head: PendingTask, reply: Reply): void;
  /** `pending` settles now with `outcome`, before any reply of the worker. */
  settle(pending: PendingTask, outcome: PoolOutcome): void;
  /** The worker is to skip task `id`: it was sent and has not started. */
  sendCancel(id: number): void;
  /** The worker is to be stopped. Called once at most. */
  kill(reason: StopReason, message: string): void;
}

/** Who stopped the worker, and what the head's caller is told. */
export type Stop = { reason: StopReason; message: string };

export type TaskPhase = "load" | "run";

const CANCELLED = "the call was cancelled by its caller";

export class WorkerSchedule {
  readonly #options: WorkerScheduleOptions;
  readonly #actions: ScheduleActions;
  readonly #queue = new WorkerQueue();
  /**
   * When the head's watchdog fires, on the owner's clock; kept while the
   * clock is paused (a second pause answers from it). Undefined: no head,
   * or the worker has ended.
   */
  #deadline: number | undefined;
  #paused = false;
  /** The head's part (its module's top level, or the task itself) and that part's limit: the kill's message names them. */
  #phase: TaskPhase = "run";
  #limitMs = 0;
  #stop: Stop | undefined;
  #exited = false;

  constructor(options: WorkerScheduleOptions, actions: ScheduleActions) {
    this.#options = options;
    this.#actions = actions;
  }

  /** The task the worker runs now (or will run first), a ghost included. */
  get head(): PendingTask | undefined {
    return this.#queue.head;
  }

  /** Tasks given and not yet answered, ghosts included. */
  get length(): number {
    return this.#queue.length;
  }

  /** The first stop decided or asked for, if any. */
  get stopped(): Stop | undefined {
    return this.#stop;
  }

  /** When `tick` is to be called next: the head's deadline, unless its clock is paused or the worker is stopped or gone. */
  get wakeAt(): number | undefined {
    if (this.#paused || this.#stop !== undefined || this.#exited) return undefined;
    return this.#deadline;
  }

  /** Gives `pending` to the worker; answers whether the outbox was empty (a flush is to be scheduled: tasks given in one turn leave as one message). */
  dispatch(pending: PendingTask): boolean {
    // How long the worker may hold the reply back: the host's rule, sent with the task (the worker keeps no copy of it).
    const entry = { id: pending.id, task: pending.task, replyWithinMs: pending.task.limits.timeoutMs + this.#options.watchdogGraceMs * HOLD_BACK_GRACE_SHARE };
    const flush = this.#queue.push(pending, entry);
    if (this.#queue.length === 1) this.#startHead();
    return flush;
  }

  /** The outbox's entries, in order, as they leave. */
  takeOutbox(): TaskEntry[] {
    return this.#queue.takeOutbox();
  }

  /**
   * The worker's replies, in its order: each answers the head in turn, and
   * the task left at the head runs from now. False if one is not the head's
   * (the worker broke the order and is killed; those before it stand).
   */
  replies(entries: readonly ReplyEntry[]): boolean {
    for (const entry of entries) {
      const head = this.#queue.shiftHead(entry.id);
      if (head === undefined) {
        this.#clearClock();
        this.stop("protocol", "the sandbox worker answered out of order");
        return false;
      }
      this.#actions.answered(head, entry.reply);
    }
    this.#startHead();
    return true;
  }

  /** Task `id` is at `phase`: the head makes its isolate first (its module's top level, under the load limit), then runs; each part has its own watchdog. */
  phase(id: number, phase: TaskPhase): void {
    const head = this.#queue.head;
    if (head?.id === id) this.#arm(phase === "load" ? this.#options.loadTimeoutMs : head.limits.timeoutMs, phase);
  }

  /** The session's timer fired: the head is killed if it is past its deadline (a timer that fired early changes nothing). */
  tick(): void {
    const wakeAt = this.wakeAt;
    if (wakeAt === undefined || this.#options.now() < wakeAt) return;
    const what = this.#phase === "load" ? "loading the module (its top level) ran past the" : "the tool ran past its";
    this.stop("watchdog", `${what} ${this.#limitMs} ms limit and its worker did not stop it; the worker was killed`);
  }

  /**
   * A capability's gate waits: the head's clock stops. Answers what it had
   * left (undefined if no clock runs); each pause answers from the same
   * deadline, so two requests that wait at once each resume with their own.
   */
  pause(): number | undefined {
    if (this.#deadline === undefined) return undefined;
    this.#paused = true;
    return Math.max(0, this.#deadline - this.#options.now());
  }

  /** The gate answered: the head's clock runs again with `leftMs` (what `pause` answered), unless the head was answered meanwhile. */
  resume(leftMs: number): void {
    if (this.#deadline === undefined) return;
    this.#deadline = this.#options.now() + leftMs;
    this.#paused = false;
  }

  /**
   * The caller gave up on `pending`. A running task costs the worker (it is
   * killed, which disposes the isolate); one still waiting in the worker is
   * answered now and its reply ignored later.
   */
  cancel(pending: PendingTask): void {
    const effect = this.#queue.cancel(pending);
    if (effect.kind === "absent") return;
    if (effect.kind === "running") {
      this.stop("cancel", `${CANCELLED}; its worker was stopped`);
      return;
    }
    this.#actions.settle(pending, { ok: false, kind: "cancelled", message: CANCELLED });
    if (effect.kind === "unsent") {
      // Still in this turn's outbox: the worker never hears of it.
      if (effect.wasHead) this.#startHead();
      return;
    }
    // It stays in the queue (the worker answers it in turn), answered already: its reply settles nothing.
    pending.settle = () => undefined;
    // Not started yet: the worker answers it without running it, so the
    // calls sent ahead behind it do not wait for its whole run.
    this.#actions.sendCancel(pending.id);
  }

  /** Takes back the tasks given ahead that have not started, for the pool to run elsewhere (see WorkerQueue.takeBack): the worker skips those it was sent. */
  takeBack(): PendingTask[] {
    if (this.#exited || this.#stop !== undefined) return [];
    const { taken, cancels } = this.#queue.takeBack();
    for (const id of cancels) this.#actions.sendCancel(id);
    return taken;
  }

  /** The worker is to be stopped (the schedule's own decision, or its owner's: the memory watch, a nested call's deadline (nested-calls.ts), a broken lane, the pool closing). Only the first stop counts. */
  stop(reason: StopReason, message: string): void {
    if (this.#exited || this.#stop !== undefined) return;
    this.#stop = { reason, message };
    this.#actions.kill(reason, message);
  }

  /** The worker has ended: nothing more is decided (no deadline, no stop, no take-back); its tasks stay until `drain`. */
  exit(): void {
    this.#exited = true;
    this.#clearClock();
  }

  /** Every task, taken out once the worker has ended: the head (its caller gets the death's outcome) and the orphans, which never started (a ghost is none: it runs elsewhere). */
  drain(): { head: PendingTask | undefined; orphans: PendingTask[] } {
    const [head, ...rest] = this.#queue.drain();
    return { head, orphans: rest.filter((pending) => pending.ghost !== true) };
  }

  /** The head changed (replies, an unsent head cancelled, a first task): its clock runs from now, or none runs. */
  #startHead(): void {
    const head = this.#queue.head;
    if (head === undefined || this.#exited) this.#clearClock();
    else this.#arm(head.limits.timeoutMs, "run");
  }

  /** (Re)arms the head's watchdog: `limitMs` + grace from now. */
  #arm(limitMs: number, phase: TaskPhase): void {
    this.#deadline = this.#options.now() + limitMs + this.#options.watchdogGraceMs;
    this.#paused = false;
    this.#phase = phase;
    this.#limitMs = limitMs;
  }

  #clearClock(): void {
    this.#deadline = undefined;
    this.#paused = false;
  }
}
