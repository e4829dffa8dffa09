/**
 * @module src/pool/session
 * One sandbox worker, seen from the host: transport and timers. It owns the
 * worker's long `serve` task and its channel, and the timers that follow the
 * running task; what happens to its tasks is decided by its schedule
 * (worker-schedule.ts: order, the watchdog's deadline, cancels, take-backs,
 * replies) and its Code Mode nested calls' (nested-calls.ts: the running
 * one's deadline, blame), which the session feeds every event and obeys.
 *
 * ```
 * dispatch ─▶ schedule (queue + outbox) ─(one message per turn; task-wire.ts)─▶ worker
 *   head runs ── one timer at the earliest wakeAt of schedule, nested calls and RSS watch (tick each) ── its lane's journal (script-lanes.ts)
 *   replies [(id, Reply)…] ─▶ schedule.replies ─▶ answered: each head settles in turn ─▶ next becomes head
 *   stalled (pool) ─▶ takeBack: tasks not started run elsewhere
 *   schedule's kill (watchdog, cancel, protocol) / RSS / nested calls' tick / broken lane ─▶ abort serve task ─▶ tinypool kills the process
 *   process dies ─▶ head: timeout | memory | cancelled | crash (death-outcome.ts);
 *                   the rest never started and go back to the pool's queue
 * ```
 * A session owns its serve task and its timers; the pool owns the sessions.
 */
import type Tinypool from "tinypool";
import { WorkerMessage, type NestedMessage } from "../../sandbox/shared/session-messages.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";
import type { PendingTask, SessionHooks, SessionOptions } from "./session-types.js";
import { isCapabilityRequestMessage } from "../../sandbox/shared/capability-messages.js";
import { MemoryWatch, overMemoryMessage, type Charge } from "./memory-watch.js";
import { WorkerProcess } from "./worker-process.js";
import { nestedDeath, nestedToBlame, outcomeOfDeath, scriptOutcome, type StopReason } from "./death-outcome.js";
import { findTinypoolChild } from "./tinypool-child.js";
import { NestedCalls } from "./nested-calls.js";
import { ScriptLanes } from "./script-lanes.js";
import { serveCapability, type CapabilityChannelDeps } from "./capability-channel.js";
import { WorkerSchedule } from "./worker-schedule.js";
import { WakeTimer } from "./wake-timer.js";
import { TaskWire } from "./task-wire.js";

export type { FastCulprit, PoolFailureKind, PoolOutcome, StopReason } from "./death-outcome.js";

export type { CapabilityHandler, CapabilityHooks } from "./capability-channel.js";
export type { PendingTask, SessionHooks, SessionOptions } from "./session-types.js";

export class WorkerSession {
  readonly #options: SessionOptions;
  readonly #hooks: SessionHooks;
  readonly #tinypool: Tinypool;
  readonly #controller = new AbortController();
  readonly #schedule: WorkerSchedule;
  #send: ((message: unknown) => void) | undefined;
  #worker: WorkerProcess | undefined;
  #ready = false;
  #ended = false;
  /** Wakes the nested calls, the schedule and the memory watch (`#follow`). The nested call first: when both are due, the kill is the call's that holds the worker, with its own message. */
  readonly #timer = new WakeTimer(() => {
    this.#nested.tick();
    this.#schedule.tick();
    this.#memory?.tick();
    this.#follow();
  });
  /** The task the memory watch and the journal reader run for: the head, from when it became the head until it is answered. */
  #watched: PendingTask | undefined;
  /** The resident-memory watch (memory-watch.ts), once the worker's pid is known; who it charged, once it stopped the worker. */
  #memory: MemoryWatch | undefined;
  #memoryCharge: Charge | undefined;
  readonly #nested: NestedCalls;
  readonly #lanes: ScriptLanes;
  readonly #wire: TaskWire;
  readonly #capabilities: CapabilityChannelDeps;
  #closed!: () => void;
  /** Settles once the session is over and its journals are read and removed. */
  readonly closed = new Promise<void>((resolve) => {
    this.#closed = resolve;
  });

  constructor(tinypool: Tinypool, options: SessionOptions, hooks: SessionHooks) {
    this.#tinypool = tinypool;
    this.#options = options;
    this.#hooks = hooks;
    this.#schedule = new WorkerSchedule(
      { watchdogGraceMs: options.watchdogGraceMs, loadTimeoutMs: options.loadTimeoutMs, now: () => performance.now() },
      {
        answered: (head, reply) => {
          this.#lanes.close(head.id);
          this.#memory?.ended(reply.type === "call" ? reply.metrics.wallMs : undefined);
          head.settle({ ok: true, reply });
        },
        settle: (pending, outcome) => pending.settle(outcome),
        sendCancel: (id) => this.#send?.({ corral: 1, cancel: id }),
        kill: () => this.#controller.abort(),
      },
    );
    this.#nested = new NestedCalls({
      loadTimeoutMs: options.loadTimeoutMs,
      watchdogGraceMs: options.watchdogGraceMs,
      now: () => performance.now(),
      send: (id, task) => {
        const message: NestedMessage = { corral: 1, nested: { id, task: this.#wire.onTheWire({ id, task }).task as CallTask } };
        if (!this.#ended) this.#send?.(message);
      },
      kill: (message) => this.kill("watchdog", message),
      running: (limits) => {
        this.#memory?.nested(limits?.memoryMb);
        this.#follow();
      },
    });
    this.#wire = new TaskWire((id, lane) => this.#lanes.open(id, lane));
    this.#lanes = new ScriptLanes({
      journals: options.journals,
      logger: options.logger,
      nested: this.#nested,
      head: () => this.#schedule.head,
      broken: (message) => this.kill("protocol", message),
      ...(hooks.fastRecords !== undefined ? { fastRecords: hooks.fastRecords } : {}),
    });
    this.#capabilities = {
      handler: hooks.capability,
      // A gate that waits stops the head's clock; its answer restarts it with what was left.
      clock: {
        pause: () => {
          const leftMs = this.#schedule.pause();
          this.#follow();
          return leftMs;
        },
        resume: (leftMs) => {
          this.#schedule.resume(leftMs);
          this.#follow();
        },
      },
      nested: this.#nested,
      logger: options.logger,
      running: (callId) => this.#schedule.head?.task.type === "call" && this.#schedule.head.task.callId === callId,
      send: (message) => {
        if (!this.#ended) this.#send?.(message);
      },
    };
    const channel = {
      // tinypool calls this as it hands the serve task to a process.
      onMessage: (send: (message: unknown) => void) => {
        this.#send = send;
      },
      postMessage: (message: unknown) => this.#onMessage(message),
    };
    tinypool.run({ type: "serve" }, { signal: this.#controller.signal, channel }).then(
      () => this.#end(new Error("the worker stopped serving")),
      (error: unknown) => this.#end(error),
    );
  }

  /** Takes tasks: booted, and neither ended nor being stopped (a task sent to a worker being stopped would only come back). */
  get ready(): boolean {
    return this.#ready && !this.#ended && this.#schedule.stopped === undefined;
  }

  /** Tasks sent and not yet answered. */
  get load(): number {
    return this.#schedule.length;
  }

  dispatch(pending: PendingTask): void {
    if (!this.ready || this.#send === undefined) throw new Error("corral: dispatch to a session that is not ready");
    // Dispatched in this turn of the event loop: they leave as one message.
    if (this.#schedule.dispatch(pending)) queueMicrotask(this.#flush);
    this.#follow();
  }

  readonly #flush = (): void => {
    if (this.#ended) return;
    const tasks = this.#schedule.takeOutbox();
    if (tasks.length === 0) return;
    this.#send?.({ corral: 1, tasks: tasks.map((entry) => this.#wire.onTheWire(entry)) });
  };

  /** The caller gave up on `pending` (what that costs is the schedule's to decide: WorkerSchedule.cancel). */
  cancel(pending: PendingTask): void {
    this.#schedule.cancel(pending);
    this.#follow();
  }

  /** Takes back the tasks given ahead that have not started, for the pool to run elsewhere (see WorkerSchedule.takeBack): the worker skips those it was sent. */
  takeBack(): PendingTask[] {
    return this.#schedule.takeBack();
  }

  /** Stops the worker (only the first stop counts): its serve task is aborted, and tinypool kills the process. */
  kill(reason: StopReason, message: string): void {
    this.#schedule.stop(reason, message);
    this.#follow();
  }

  #onMessage(raw: unknown): void {
    // Whatever the worker wrote to the running task's journal came before this message.
    this.#lanes.read();
    if (isCapabilityRequestMessage(raw)) {
      serveCapability(raw, this.#capabilities);
      return;
    }
    const parsed = WorkerMessage.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    // A worker that ended is read to the end (see #end) for its lane's messages only.
    if (this.#ended && message.type !== "fast") return;
    if (message.type === "ready") {
      // A pid that is not one of tinypool's own children is never watched nor killed.
      const child = findTinypoolChild(this.#tinypool.threads, message.pid);
      this.#worker = child === undefined ? undefined : new WorkerProcess(child, this.#options.logger);
      if (this.#worker === undefined) {
        this.kill("protocol", "the sandbox worker named a process that is not its own");
        return;
      }
      this.#memory = new MemoryWatch({
        pid: message.pid,
        slackMb: this.#options.workerMemorySlackMb,
        now: () => performance.now(),
        // Which lane call runs, if one does, is known before the memory is read.
        beforeSample: () => this.#lanes.read(),
        // A task past its allowance: the worker is stopped, charged to that task.
        onOver: (charge, bytes) => {
          this.#memoryCharge = charge;
          this.kill("memory_watch", overMemoryMessage(charge, bytes, this.#nested.running, this.#schedule.head?.limits.memoryMb ?? 0));
        },
      });
      this.#worker.onFatalMemory(() =>
        this.kill("fatal_memory", "the tool exhausted V8's memory (its worker reported a fatal out-of-memory); the worker was killed"),
      );
      this.#ready = true;
      this.#hooks.ready(this);
      return;
    }
    if (message.type === "nested") {
      const task = this.#nested.replied(message.id, message.reply);
      if (task === undefined) {
        this.kill("protocol", "the sandbox worker answered a nested call out of order");
        return;
      }
      this.#hooks.nestedReplied?.(this, task, message.reply);
      return;
    }
    // Its lines are read already (above).
    if (message.type === "journal") return;
    if (message.type === "fast") {
      this.#lanes.records(message.callId, message.records);
      return;
    }
    if (message.type === "phase") {
      this.#schedule.phase(message.id, message.phase);
      this.#follow();
      return;
    }
    const answered = this.#schedule.replies(message.replies);
    this.#follow();
    // Not for a worker that broke the order: it is being stopped.
    if (answered) this.#hooks.ready(this);
  }

  /**
   * Makes the session's timers follow the schedule and the nested calls,
   * after each event: the memory watch and the journal reader run for the
   * head, started as it becomes the head unless the worker is being stopped
   * (a stop leaves them as they are until the worker is gone) and stopped
   * as it is answered; the one timer wakes all three at the earliest `wakeAt`.
   */
  #follow(): void {
    if (this.#ended) return;
    const head = this.#schedule.head;
    if (head !== this.#watched) {
      if (this.#watched !== undefined) this.#stopWatchers();
      if (head !== undefined && this.#schedule.stopped === undefined) {
        this.#watched = head;
        this.#memory?.start(head.limits.memoryMb);
        this.#lanes.headStarted(head.id);
      }
    }
    this.#timer.set(this.#schedule.wakeAt, this.#nested.wakeAt, this.#memory?.wakeAt);
  }

  #stopWatchers(): void {
    this.#watched = undefined;
    this.#lanes.stopReading();
    this.#memory?.stop();
  }

  async #end(error: unknown): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#schedule.exit();
    this.#timer.clear();
    this.#stopWatchers();
    this.#memory?.close();
    // What the worker wrote before it died is read first: a lane call it
    // started (to blame) and the records of those it ended (for the ledger).
    await this.#worker?.death();
    this.#lanes.read();
    this.#lanes.closeAll();
    const { head, orphans } = this.#schedule.drain();
    const outcome = await outcomeOfDeath(this.#worker, this.#schedule.stopped, error);
    const blamed = this.#nested.end(nestedDeath(outcome), nestedToBlame(this.#schedule.stopped?.reason, this.#memoryCharge, this.#nested));
    if (head !== undefined) head.settle(blamed === undefined || outcome.ok ? outcome : scriptOutcome(blamed, outcome.message));
    this.#hooks.ended(this, orphans);
    this.#closed();
  }
}
