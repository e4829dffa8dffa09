/**
 * @module src/pool/session
 * One sandbox worker, seen from the host: its long `serve` task, the tasks
 * given to it (worker-queue.ts: the oldest unanswered one is the one
 * running), and the second layer of every limit for the running one. The
 * host times it from when the task before it was answered, on its own
 * clock: no message from the worker is needed to start the watchdog.
 *
 * ```
 * dispatch ─▶ queue + outbox ─(one message per turn; task-wire.ts)─▶ worker
 *   head runs ── watchdog (limit + grace) ── RSS watch ── its lane's journal (script-lanes.ts)
 *   replies [(id, Reply)…] ─▶ each settles the head in turn ─▶ next becomes head
 *   stalled (pool) ─▶ takeBack: tasks not started run elsewhere
 *   watchdog / RSS / cancel ─▶ abort serve task ─▶ tinypool kills the process
 *   process dies ─▶ head: timeout | memory | cancelled | crash (death-outcome.ts);
 *                   the rest never started and go back to the pool's queue
 * ```
 * A session owns its serve task and its timers; the pool owns the sessions.
 */
import type { Logger } from "pino";
import type Tinypool from "tinypool";
import { WorkerMessage, type NestedMessage, type ReplyEntry, type TaskEntry } from "../../sandbox/shared/session-messages.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";
import type { PendingTask, SessionHooks, SessionOptions } from "./session-types.js";
import { isCapabilityRequestMessage } from "../../sandbox/shared/capability-messages.js";
import { HOLD_BACK_GRACE_SHARE } from "../../sandbox/shared/tuning.js";
import { MemoryWatch, overMemoryMessage, type Charge } from "./memory-watch.js";
import { WorkerProcess } from "./worker-process.js";
import { nestedDeath, nestedToBlame, outcomeOfDeath, scriptOutcome, type StopReason } from "./death-outcome.js";
import { findTinypoolChild } from "./tinypool-child.js";
import { NestedCalls } from "./nested-calls.js";
import { HeadWatchdog } from "./head-watchdog.js";
import { ScriptLanes } from "./script-lanes.js";
import { serveCapability, type CapabilityChannelDeps } from "./capability-channel.js";
import { WorkerQueue } from "./worker-queue.js";
import { TaskWire } from "./task-wire.js";

export type { FastCulprit, PoolFailureKind, PoolOutcome, StopReason } from "./death-outcome.js";

export type { CapabilityHandler, CapabilityHooks } from "./capability-channel.js";
export type { PendingTask, SessionHooks, SessionOptions } from "./session-types.js";

export class WorkerSession {
  readonly #options: SessionOptions;
  readonly #hooks: SessionHooks;
  readonly #tinypool: Tinypool;
  readonly #controller = new AbortController();
  readonly #queue = new WorkerQueue();
  #send: ((message: unknown) => void) | undefined;
  #worker: WorkerProcess | undefined;
  #ready = false;
  #ended = false;
  #stop: { reason: StopReason; message: string } | undefined;
  readonly #watchdog = new HeadWatchdog();
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
    this.#nested = new NestedCalls({
      loadTimeoutMs: options.loadTimeoutMs,
      watchdogGraceMs: options.watchdogGraceMs,
      send: (id, task) => {
        const message: NestedMessage = { corral: 1, nested: { id, task: this.#wire.onTheWire({ id, task }).task as CallTask } };
        if (!this.#ended) this.#send?.(message);
      },
      kill: (message) => this.kill("watchdog", message),
      running: (limits) => this.#memory?.nested(limits?.memoryMb),
    });
    this.#wire = new TaskWire((id, lane) => this.#lanes.open(id, lane));
    this.#lanes = new ScriptLanes({
      journals: options.journals,
      logger: options.logger,
      nested: this.#nested,
      head: () => this.#queue.head,
      broken: (message) => this.kill("protocol", message),
      ...(hooks.fastRecords !== undefined ? { fastRecords: hooks.fastRecords } : {}),
    });
    this.#capabilities = {
      handler: hooks.capability,
      watchdog: this.#watchdog,
      nested: this.#nested,
      logger: options.logger,
      running: (callId) => this.#queue.head?.task.type === "call" && this.#queue.head.task.callId === callId,
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

  get ready(): boolean {
    return this.#ready && !this.#ended;
  }

  /** Tasks sent and not yet answered. */
  get load(): number {
    return this.#queue.length;
  }

  dispatch(pending: PendingTask): void {
    if (!this.ready || this.#send === undefined) throw new Error("corral: dispatch to a session that is not ready");
    // How long the worker may hold the reply back: the host's rule, sent with the task (the worker keeps no copy of it).
    const entry = { id: pending.id, task: pending.task, replyWithinMs: pending.task.limits.timeoutMs + this.#options.watchdogGraceMs * HOLD_BACK_GRACE_SHARE };
    // Dispatched in this turn of the event loop: they leave as one message.
    if (this.#queue.push(pending, entry)) queueMicrotask(() => this.#flush());
    if (this.#queue.length === 1) this.#startHead();
  }

  #flush(): void {
    if (this.#ended) return;
    const tasks = this.#queue.takeOutbox();
    if (tasks.length === 0) return;
    this.#send?.({ corral: 1, tasks: tasks.map((entry) => this.#wire.onTheWire(entry)) });
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
      this.kill("cancel", "the call was cancelled by its caller; its worker was stopped");
      return;
    }
    pending.settle({ ok: false, kind: "cancelled", message: "the call was cancelled by its caller" });
    if (effect.kind === "unsent") {
      // Still in this turn's outbox: the worker never hears of it.
      if (effect.wasHead) {
        this.#clearHeadTimers();
        this.#startHead();
      }
      return;
    }
    pending.settle = () => undefined;
    // Not started yet: the worker answers it without running it, so the
    // calls sent ahead behind it do not wait for its whole run.
    this.#send?.({ corral: 1, cancel: pending.id });
  }

  /** Takes back the tasks given ahead that have not started, for the pool to run elsewhere (see WorkerQueue.takeBack): the worker skips those it was sent. */
  takeBack(): PendingTask[] {
    if (this.#ended || this.#stop !== undefined) return [];
    const { taken, cancels } = this.#queue.takeBack();
    for (const id of cancels) this.#send?.({ corral: 1, cancel: id });
    return taken;
  }

  kill(reason: StopReason, message: string): void {
    if (this.#ended || this.#stop !== undefined) return;
    this.#stop = { reason, message };
    this.#controller.abort();
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
        // Which lane call runs, if one does, is known before the memory is read.
        beforeSample: () => this.#lanes.read(),
        // A task past its allowance: the worker is stopped, charged to that task.
        onOver: (charge, bytes) => {
          this.#memoryCharge = charge;
          this.kill("memory_watch", overMemoryMessage(charge, bytes, this.#nested.running, this.#queue.head?.limits.memoryMb ?? 0));
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
      // The running task makes its isolate first (the module's top level,
      // under the load limit), then runs: each part has its own watchdog.
      const head = this.#queue.head;
      if (head?.id === message.id) this.#watch(message.phase === "load" ? this.#options.loadTimeoutMs : head.limits.timeoutMs, message.phase);
      return;
    }
    for (const entry of message.replies) {
      if (!this.#settleHead(entry)) {
        this.kill("protocol", "the sandbox worker answered out of order");
        return;
      }
    }
    if (this.#queue.length > 0) this.#startHead();
    this.#hooks.ready(this);
  }

  /** The reply for the oldest task sent: it settles, and the next one is running now. */
  #settleHead(entry: ReplyEntry): boolean {
    const head = this.#queue.shiftHead(entry.id);
    if (head === undefined) return false;
    this.#clearHeadTimers();
    this.#lanes.close(head.id);
    this.#memory?.ended(entry.reply.type === "call" ? entry.reply.metrics.wallMs : undefined);
    head.settle({ ok: true, reply: entry.reply });
    return true;
  }

  #startHead(): void {
    const head = this.#queue.head;
    if (head === undefined) return;
    this.#watch(head.limits.timeoutMs, "run");
    this.#memory?.start(head.limits.memoryMb);
    this.#lanes.headStarted(head.id);
  }

  /** (Re)arms the watchdog of the running task: `limitMs` + grace from now. */
  #watch(limitMs: number, phase: "load" | "run"): void {
    const what = phase === "load" ? "loading the module (its top level) ran past the" : "the tool ran past its";
    this.#watchdog.arm(limitMs + this.#options.watchdogGraceMs, () => this.kill("watchdog", `${what} ${limitMs} ms limit and its worker did not stop it; the worker was killed`));
  }

  #clearHeadTimers(): void {
    this.#watchdog.clear();
    this.#lanes.stopReading();
    this.#memory?.stop();
  }

  async #end(error: unknown): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearHeadTimers();
    this.#memory?.close();
    // What the worker wrote before it died is read first: a lane call it
    // started (to blame) and the records of those it ended (for the ledger).
    await this.#worker?.death();
    this.#lanes.read();
    this.#lanes.closeAll();
    const [head, ...rest] = this.#queue.drain();
    const outcome = await outcomeOfDeath(this.#worker, this.#stop, error);
    const blamed = this.#nested.end(nestedDeath(outcome), nestedToBlame(this.#stop?.reason, this.#memoryCharge, this.#nested));
    if (head !== undefined) head.settle(blamed === undefined || outcome.ok ? outcome : scriptOutcome(blamed, outcome.message));
    // A ghost's task runs elsewhere already.
    this.#hooks.ended(this, rest.filter((pending) => pending.ghost !== true));
    this.#closed();
  }
}
