/**
 * @module src/pool/session
 * One sandbox worker, seen from the host: its long `serve` task, the tasks
 * sent to it in order, and the second layer of every limit for the one that
 * is running.
 *
 * The worker runs tasks strictly in arrival order, so the running task is
 * always the oldest unanswered one, and it started when the task before it
 * was answered (or when it was sent, if none was waiting). The host times it
 * from that moment on its own clock: no message from the worker is needed to
 * start the watchdog. (The worker holds a reply back only where that clock
 * stays safe: see `holdBack` in sandbox/worker/entry.ts.)
 *
 * ```
 * dispatch ─▶ FIFO + outbox ─(one message per turn; inline code once)─▶ worker
 *   head runs ── watchdog (limit + grace) ── RSS watch
 *   replies [(id, Reply)…] ─▶ each settles the head in turn ─▶ next becomes head
 *   stalled (pool) ─▶ takeBack: tasks not started leave (sent ones stay as
 *                     ghosts, the worker told to skip them) to run elsewhere
 *   watchdog / RSS / cancel ─▶ abort serve task ─▶ tinypool kills the process
 *   process dies ─▶ head: timeout | memory | cancelled | crash; the rest never
 *                   started and go back to the pool's queue
 * ```
 * A session owns its serve task and its timers; the pool owns the sessions.
 */
import type { Logger } from "pino";
import type Tinypool from "tinypool";
import { WorkerMessage, type NestedMessage, type ReplyEntry, type TaskEntry } from "../../sandbox/shared/session-messages.js";
import type { CallReply, Reply } from "../../sandbox/shared/replies.js";
import type { CallTask, Task } from "../../sandbox/shared/tasks.js";
import type { FastLane, FastRecord } from "../../sandbox/shared/fast-lane-schemas.js";
import { CapabilityRequestMessage, isCapabilityRequestMessage, type CapabilityPauseMessage, type CapabilityReplyMessage } from "../../sandbox/shared/capability-messages.js";
import { BundleWindow } from "../../sandbox/shared/bundle-window.js";
import { HOLD_BACK_GRACE_SHARE, JOURNAL_READ_MS } from "../../sandbox/shared/tuning.js";
import { MemoryWatch, type Charge } from "./memory-watch.js";
import { WorkerProcess } from "./worker-process.js";
import { outcomeOfDeath, scriptOutcome, type PoolFailureKind, type PoolOutcome, type StopReason } from "./death-outcome.js";
import { findTinypoolChild } from "./tinypool-child.js";
import { NestedCalls, type NestedOutcome } from "./nested-calls.js";
import { JournalError, type LaneJournal, type LaneJournals } from "./lane-journal.js";

export type { FastCulprit, PoolFailureKind, PoolOutcome, StopReason } from "./death-outcome.js";

/** `culprit`: a script's fast nested call that its worker's death was charged to (its owner records the strike). */

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

/**
 * What a capability handler may do besides answering: `paused()` as its gate
 * starts to wait (the call's clocks stop), and `nested(task)` to run a Code
 * Mode script's tool call in the script's own worker (nested-calls.ts).
 */
export type CapabilityHooks = { paused(): void; nested(task: CallTask): Promise<NestedOutcome> };

/** Performs a tool's capability request (src/capabilities/broker.ts, src/codemode); `pausedMs`: time its gate waited. */
export type CapabilityHandler = (message: CapabilityRequestMessage, hooks: CapabilityHooks) => Promise<{ answerJson: string; pausedMs: number }>;

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

export class WorkerSession {
  readonly #options: SessionOptions;
  readonly #hooks: SessionHooks;
  readonly #tinypool: Tinypool;
  readonly #controller = new AbortController();
  readonly #fifo: PendingTask[] = [];
  /** Dispatched in this turn of the event loop, not yet written: they leave as one message. */
  #outbox: TaskEntry[] = [];
  /** The bundles whose code the worker holds (see sandbox/shared/bundle-window.ts). */
  readonly #bundlesSent = new BundleWindow<true>();
  #send: ((message: unknown) => void) | undefined;
  #worker: WorkerProcess | undefined;
  #ready = false;
  #ended = false;
  #stop: { reason: StopReason; message: string } | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #watchdogAt: number | undefined;
  #watchdogFire: (() => void) | undefined;
  /** The resident-memory watch (memory-watch.ts), once the worker's pid is known; who it charged, once it stopped the worker. */
  #memory: MemoryWatch | undefined;
  #memoryCharge: Charge | undefined;
  readonly #nested: NestedCalls;
  /** The fast lanes' journals of tasks sent (by task id), and the timer that reads the running one's. */
  readonly #journals = new Map<number, LaneJournal>();
  #journalTimer: NodeJS.Timeout | undefined;
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
        const message: NestedMessage = { corral: 1, nested: { id, task: this.#onTheWire({ id, task }).task as CallTask } };
        if (!this.#ended) this.#send?.(message);
      },
      kill: (message) => this.kill("watchdog", message),
      running: (limits) => this.#memory?.nested(limits?.memoryMb),
    });
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
    return this.#fifo.length;
  }

  dispatch(pending: PendingTask): void {
    if (!this.ready || this.#send === undefined) throw new Error("corral: dispatch to a session that is not ready");
    this.#fifo.push(pending);
    // How long the worker may hold the reply back: the host's rule, sent with the task (the worker keeps no copy of it).
    this.#outbox.push({ id: pending.id, task: pending.task, replyWithinMs: pending.task.limits.timeoutMs + this.#options.watchdogGraceMs * HOLD_BACK_GRACE_SHARE });
    if (this.#outbox.length === 1) queueMicrotask(() => this.#flush());
    if (this.#fifo.length === 1) this.#startHead();
  }

  #flush(): void {
    const tasks = this.#outbox;
    if (tasks.length === 0 || this.#ended) return;
    this.#outbox = [];
    this.#send?.({ corral: 1, tasks: tasks.map((entry) => this.#onTheWire(entry)) });
  }

  /**
   * A bundle's inline code goes only to a worker that lacks it: the worker
   * keeps what it was sent in a window that this one mirrors (updated here,
   * as the message leaves, so a task taken back unsent changes nothing).
   * The task itself keeps its code, should it be run elsewhere after all.
   */
  #onTheWire(entry: TaskEntry): TaskEntry {
    const { task } = entry;
    const bundle = this.#bundleOnTheWire(task.bundle);
    // A fast lane's bundles go by the same window.
    const lane: FastLane | undefined =
      task.type === "call" && task.fastLane !== undefined ? { ...task.fastLane, tools: task.fastLane.tools.map((tool) => ({ ...tool, bundle: this.#bundleOnTheWire(tool.bundle) })) } : undefined;
    if (lane !== undefined) this.#openJournal(entry.id, lane);
    // A warm call's task leaves as it is: nothing to strip, nothing copied.
    if (bundle === task.bundle && lane === undefined) return entry;
    const wired = { ...task, bundle } as Task;
    if (lane !== undefined && wired.type === "call") wired.fastLane = lane;
    return { ...entry, task: wired };
  }

  /** A journal for the lane of task `id` (without one, the worker runs nothing on the lane: every call goes to the host). */
  #openJournal(id: number, lane: FastLane): void {
    try {
      const journal = this.#options.journals.open();
      this.#journals.set(id, journal);
      lane.journal = journal.path;
    } catch (error) {
      delete lane.journal;
      this.#options.logger.warn({ err: error }, "no file could be made for a Code Mode script's fast lane: its tool calls go through the host");
    }
  }

  #bundleOnTheWire<B extends Task["bundle"]>(bundle: B): B {
    if (bundle.code === undefined || this.#bundlesSent.admit(bundle.hash, true)) return bundle;
    const { code: _sent, ...withoutCode } = bundle;
    return withoutCode as B;
  }

  /**
   * The caller gave up on `pending`. A running task costs the worker (it is
   * killed, which disposes the isolate); one still waiting in the worker is
   * answered now and its reply ignored later.
   */
  cancel(pending: PendingTask): void {
    const index = this.#fifo.indexOf(pending);
    if (index < 0) return;
    const unsent = this.#outbox.findIndex((entry) => entry.id === pending.id);
    if (unsent >= 0) {
      // Still in this turn's outbox: the worker never hears of it.
      this.#outbox.splice(unsent, 1);
      this.#fifo.splice(index, 1);
      pending.settle({ ok: false, kind: "cancelled", message: "the call was cancelled by its caller" });
      if (index === 0) {
        this.#clearHeadTimers();
        this.#startHead();
      }
      return;
    }
    if (index === 0) {
      this.kill("cancel", "the call was cancelled by its caller; its worker was stopped");
      return;
    }
    pending.settle({ ok: false, kind: "cancelled", message: "the call was cancelled by its caller" });
    pending.settle = () => undefined;
    // Not started yet: the worker answers it without running it, so the
    // calls sent ahead behind it do not wait for its whole run.
    this.#send?.({ corral: 1, cancel: pending.id });
  }

  /**
   * Takes back the tasks sent ahead that have not started (all but the
   * running one), for the pool to run elsewhere while this worker is stuck
   * on a slow task. One still in this turn's outbox simply leaves it. One
   * already sent stays in the FIFO as a ghost, so that the head is still the
   * running task, and the worker is told to skip it; its reply (the skip, or
   * its result should the worker have started it first) is ignored.
   */
  takeBack(): PendingTask[] {
    if (this.#ended || this.#stop !== undefined) return [];
    const taken: PendingTask[] = [];
    const cancels: number[] = [];
    for (let i = 1; i < this.#fifo.length; i++) {
      const pending = this.#fifo[i] as PendingTask;
      if (pending.ghost === true) continue;
      taken.push(pending);
      const unsent = this.#outbox.findIndex((entry) => entry.id === pending.id);
      if (unsent >= 0) {
        this.#outbox.splice(unsent, 1);
        this.#fifo.splice(i--, 1);
        continue;
      }
      this.#fifo[i] = { id: pending.id, task: pending.task, limits: pending.limits, key: pending.key, settle: () => undefined, ghost: true };
      cancels.push(pending.id);
    }
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
    this.#readJournal();
    if (isCapabilityRequestMessage(raw)) {
      this.#onCapability(raw);
      return;
    }
    const parsed = WorkerMessage.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    // A worker that ended is read to the end (see #end) for its lane's messages only.
    if (this.#ended && message.type !== "fast") return;
    if (message.type === "ready") {
      this.#worker = this.#adopt(message.pid);
      if (this.#worker === undefined) {
        this.kill("protocol", "the sandbox worker named a process that is not its own");
        return;
      }
      this.#memory = new MemoryWatch({
        pid: message.pid,
        slackMb: this.#options.workerMemorySlackMb,
        // Which lane call runs, if one does, is known before the memory is read.
        beforeSample: () => this.#readJournal(),
        onOver: (charge, bytes) => this.#overMemory(charge, bytes),
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
      this.#laneRecords(message.callId, message.records);
      return;
    }
    if (message.type === "phase") {
      // The running task makes its isolate first (the module's top level,
      // under the load limit), then runs: each part has its own watchdog.
      const head = this.#fifo[0];
      if (head?.id === message.id) this.#watch(message.phase === "load" ? this.#options.loadTimeoutMs : head.limits.timeoutMs, message.phase);
      return;
    }
    for (const entry of message.replies) {
      if (!this.#settleHead(entry)) {
        this.kill("protocol", "the sandbox worker answered out of order");
        return;
      }
    }
    if (this.#fifo.length > 0) this.#startHead();
    this.#hooks.ready(this);
  }

  /**
   * A capability request of the running call: performed by the host's
   * handler, answered on this channel. While the handler waits on the gate
   * the watchdog stops (and the worker is told to stop its deadline); both
   * restart with what they had left when the answer goes out.
   */
  #onCapability(raw: unknown): void {
    const parsed = CapabilityRequestMessage.safeParse(raw);
    const handler = this.#hooks.capability;
    if (!parsed.success || handler === undefined) return;
    const request = parsed.data;
    const isHead = () => {
      const head = this.#fifo[0];
      return head !== undefined && head.task.type === "call" && head.task.callId === request.callId;
    };
    let pausedLeftMs: number | undefined;
    const paused = () => {
      if (!isHead() || this.#watchdogAt === undefined || pausedLeftMs !== undefined) return;
      pausedLeftMs = Math.max(0, this.#watchdogAt - performance.now());
      clearTimeout(this.#watchdog);
      const pause: CapabilityPauseMessage = { corral: 1, capabilityPause: { callId: request.callId } };
      if (!this.#ended) this.#send?.(pause);
    };
    const nested = (task: CallTask) => (isHead() ? this.#nested.run(task) : Promise.resolve<NestedOutcome>({ ok: false, kind: "cancelled", message: "the script has ended" }));
    handler(request, { paused, nested }).then(
      ({ answerJson, pausedMs }) => {
        if (pausedLeftMs !== undefined && isHead()) this.#restartWatchdog(pausedLeftMs);
        const reply: CapabilityReplyMessage = { corral: 1, capability: { callId: request.callId, seq: request.seq, answerJson, pausedMs } };
        if (!this.#ended) this.#send?.(reply);
      },
      (error: unknown) => this.#options.logger.error({ err: error, callId: request.callId }, "a capability request failed in the host"),
    );
  }

  /** The gate has answered: the watchdog runs again with what it had left. */
  #restartWatchdog(leftMs: number): void {
    const fire = this.#watchdogFire;
    if (fire === undefined) return;
    clearTimeout(this.#watchdog);
    this.#watchdogAt = performance.now() + leftMs;
    this.#watchdog = setTimeout(fire, leftMs);
  }

  /** The reply for the oldest task sent: it settles, and the next one is running now. */
  #settleHead(entry: ReplyEntry): boolean {
    const head = this.#fifo[0];
    if (head === undefined || head.id !== entry.id) return false;
    this.#fifo.shift();
    this.#clearHeadTimers();
    this.#closeJournal(head.id);
    this.#memory?.ended(entry.reply.type === "call" ? entry.reply.metrics.wallMs : undefined);
    head.settle({ ok: true, reply: entry.reply });
    return true;
  }

  /** Finds `pid` among tinypool's own children: a pid that is not ours is never watched nor killed. */
  #adopt(pid: number): WorkerProcess | undefined {
    const child = findTinypoolChild(this.#tinypool.threads, pid);
    return child === undefined ? undefined : new WorkerProcess(child, this.#options.logger);
  }

  #startHead(): void {
    const head = this.#fifo[0];
    if (head === undefined) return;
    const { timeoutMs, memoryMb } = head.limits;
    this.#watch(timeoutMs, "run");
    this.#memory?.start(memoryMb);
    if (this.#journals.has(head.id)) {
      this.#journalTimer = setInterval(() => this.#readJournal(), JOURNAL_READ_MS);
      this.#journalTimer.unref();
    }
  }

  /** Reads the running task's journal: its lane calls that started and ended since the last read, in order. */
  #readJournal(): void {
    const head = this.#fifo[0];
    const journal = head === undefined ? undefined : this.#journals.get(head.id);
    if (journal === undefined) return;
    let lines;
    try {
      lines = journal.read();
    } catch (error) {
      this.#closeJournal(head?.id);
      if (!(error instanceof JournalError)) throw error;
      this.kill("protocol", `the sandbox worker's fast lane journal is broken: ${error.message}`);
      return;
    }
    if (lines.length === 0) return;
    // The memory watch reads once, after the lot: what ran between is over by now.
    this.#nested.batch(() => {
      for (const line of lines) {
        if (line.type === "lane") this.#laneStarted(line.callId, line.id, line.tool);
        else this.#laneRecords(line.callId, line.records);
      }
    });
  }

  #closeJournal(id: number | undefined): void {
    const journal = id === undefined ? undefined : this.#journals.get(id);
    if (journal === undefined || id === undefined) return;
    this.#journals.delete(id);
    journal.close();
  }

  /** The memory watch found a task past its allowance: the worker is stopped, charged to that task. */
  #overMemory(charge: Charge, residentBytes: number): void {
    const nested = this.#nested.running;
    const resident = `resident ${Math.round(residentBytes / 1048576)} MB`;
    this.#memoryCharge = charge;
    if (charge === "nested" && nested !== undefined) {
      this.kill("memory_watch", `the tool "${nested.tool}" (called from a Code Mode script) grew its worker past its ${nested.limits.memoryMb} MB limit (${resident}); the worker was killed`);
      return;
    }
    const limit = this.#fifo[0]?.limits.memoryMb ?? 0;
    this.kill("memory_watch", `the tool grew its worker past its ${limit} MB limit (${resident}); the worker was killed`);
  }

  /**
   * The running script's worker is about to enter a lane call: timed (and
   * blamed for a death) as a host-routed nested call is (nested-calls.ts),
   * from now. A lane call of anything but the running script, or while
   * another runs, is a broken worker.
   */
  #laneStarted(callId: string, id: string, index: number): void {
    const head = this.#fifo[0];
    const tool = head?.task.type === "call" && head.task.callId === callId ? head.task.fastLane?.tools[index] : undefined;
    if (tool === undefined || !this.#nested.laneStarted({ id, tool: index, name: tool.name, limits: tool.limits })) {
      this.kill("protocol", "the sandbox worker started a lane call the host cannot place");
    }
  }

  /** Lane records: each ends the lane call running (refusals ran nothing); the script's owner records them. */
  #laneRecords(callId: string, records: FastRecord[]): void {
    for (const record of records) {
      if (record.refused === undefined && !this.#nested.laneEnded(record.callId)) {
        this.kill("protocol", "the sandbox worker sent the record of a lane call that was not running");
        return;
      }
    }
    this.#hooks.fastRecords?.(callId, records);
  }

  /** (Re)arms the watchdog of the running task: `limitMs` + grace from now. */
  #watch(limitMs: number, phase: "load" | "run"): void {
    clearTimeout(this.#watchdog);
    const what = phase === "load" ? "loading the module (its top level) ran past the" : "the tool ran past its";
    // Kept so a capability's gate wait can pause it and resume it with what it had left.
    this.#watchdogFire = () => this.kill("watchdog", `${what} ${limitMs} ms limit and its worker did not stop it; the worker was killed`);
    this.#watchdogAt = performance.now() + limitMs + this.#options.watchdogGraceMs;
    this.#watchdog = setTimeout(this.#watchdogFire, limitMs + this.#options.watchdogGraceMs);
  }

  #clearHeadTimers(): void {
    clearTimeout(this.#watchdog);
    clearInterval(this.#journalTimer);
    this.#journalTimer = undefined;
    this.#memory?.stop();
    this.#watchdog = undefined;
    this.#watchdogAt = undefined;
    this.#watchdogFire = undefined;
  }

  async #end(error: unknown): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearHeadTimers();
    this.#memory?.close();
    // What the worker wrote before it died is read first: a lane call it
    // started (to blame) and the records of those it ended (for the ledger).
    await this.#worker?.death();
    this.#readJournal();
    for (const id of [...this.#journals.keys()]) this.#closeJournal(id);
    const [head, ...rest] = this.#fifo.splice(0);
    // A nested call running as the worker ended is to blame when the kill
    // was its own watchdog's, the memory watch's charged to it, nobody's (a
    // crash), or the script's watchdog's once the nested call had run past
    // its own limit.
    const stop = this.#stop?.reason;
    const nestedStopped = this.#nested.stoppedTheWorker || stop === undefined || (stop === "memory_watch" && this.#memoryCharge === "nested") || stop === "fatal_memory";
    const blameNested = this.#nested.running !== undefined && (nestedStopped || (stop === "watchdog" && this.#nested.runningPastLimit));
    const outcome = await outcomeOfDeath(this.#worker, this.#stop, error);
    const death: Exclude<NestedOutcome, { ok: true }> =
      !outcome.ok && outcome.kind !== "tool_error" ? { ok: false, kind: outcome.kind, message: outcome.message } : { ok: false, kind: "crash", message: "the worker ended" };
    const blamed = this.#nested.end(death, blameNested);
    if (head !== undefined) head.settle(blamed === undefined || outcome.ok ? outcome : scriptOutcome(blamed, outcome.message));
    // A ghost's task runs elsewhere already.
    this.#hooks.ended(this, rest.filter((pending) => pending.ghost !== true));
    this.#closed();
  }
}
