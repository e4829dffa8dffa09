/**
 * @module src/pool/nested-calls
 * A worker session's Code Mode nested calls: the tool calls a running script
 * makes, which the host has judged and sends to run in the script's own
 * worker (NestedMessage), beside the script that waits for them. Sending
 * them through the pool's queue instead could put them behind the script in
 * the same worker, which would wait for ever (a pool of one worker always).
 *
 * The worker runs them one at a time, in the order sent, so the oldest
 * unanswered one is the one running; this times it on the host's clock as
 * the schedule times its running task (worker-schedule.ts): a deadline, the
 * tool's load limit + its own limit + the grace from when it started, on
 * the clock handed in (`now`), read only as a deadline is set or compared.
 * It owns no timer: `wakeAt` says when its owner is to call `tick`, and the
 * session wakes both at the earlier of the two on its one timer
 * (wake-timer.ts). At or past the deadline `tick` kills the worker, and the
 * kill is charged to that tool (its source gets the strike), not to the
 * script.
 *
 * ```
 * run(task) ─▶ FIFO ─▶ {nested: {id, task}} ─▶ worker runs it (tool's limits)
 *   oldest: deadline = now + load + limit + grace ─▶ wakeAt
 *   tick, at or past it ─▶ kill (once), culprit = this call
 *   {type: "nested", id, reply} ─▶ settles the oldest ─▶ the next one's deadline from now, or none
 * lane call: its "lane" line in the journal ─▶ laneStarted: its deadline the same way from then
 *   its record ─▶ laneEnded ─▶ the next one's deadline from now, or none
 * session ends ─▶ the culprit gets the death's outcome, the rest `cancelled`
 * ```
 * A lane call (sandbox/worker/fast-lane.ts) runs without the host's asking;
 * the worker writes so to the lane's journal before it enters the tool
 * (sandbox/shared/lane-journal.ts), which the session reads often, before
 * every message of the worker and when the worker ends: no nested call runs
 * that the host cannot time (from when it reads the line, at most
 * JOURNAL_READ_MS late), and a kill in one is charged to its tool here too.
 * Since the journal is read ahead of the channel, a host-routed call's
 * answer may arrive while the host already knows of a lane call the worker
 * started after it. The session owns one NestedCalls and ends it when the
 * worker ends.
 */
import type { CallLimits } from "../../sandbox/shared/task-parts.js";
import type { CallReply } from "../../sandbox/shared/replies.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";

export type NestedOutcome = { ok: true; reply: CallReply } | { ok: false; kind: "timeout" | "memory" | "crash" | "cancelled"; message: string };

type Pending = { id: number; task: CallTask; settle: (outcome: NestedOutcome) => void };

type Limits = Pick<CallLimits, "timeoutMs" | "memoryMb">;

/** A lane call the worker said it started: `id` its call id, `tool` its index in the lane's tools. */
export type LaneCall = { id: string; tool: number; name: string; limits: Limits };

/** Whom a worker's death was charged to: a host-routed nested call (settled with it), or a fast one (`fast`: its index in the lane). */
export type Blamed = { tool: string; fast?: { tool: number; id: string }; death: Exclude<NestedOutcome, { ok: true }> };

export type NestedCallsOptions = {
  loadTimeoutMs: number;
  watchdogGraceMs: number;
  /** The clock deadlines are on, in ms (the session's performance.now(); plain numbers in nested-calls.test.ts). It must never run backwards. */
  now: () => number;
  /** Writes a message to the worker (the session's channel; inline bundles handled there). */
  send(id: number, task: CallTask): void;
  /** Stops the worker because the running nested call outlived its limit (`tick` decided it; called once at most). */
  kill(message: string): void;
  /**
   * The nested call running now changed (undefined: none runs), and with it
   * `wakeAt`: the memory watch times each one's growth apart, and the
   * session moves its timer. Once per journal read (`batch`).
   */
  running(limits: Limits | undefined): void;
};

export class NestedCalls {
  readonly #options: NestedCallsOptions;
  readonly #fifo: Pending[] = [];
  #nextId = 0;
  /** When the running nested call started (it became the oldest unanswered one, or the host heard it start), on `now`'s clock. */
  #runningSince = 0;
  /**
   * The lane call running in the worker, as its "lane" line said. The
   * worker runs nested calls one at a time and the journal's lines come in
   * the order written, so while one runs it is the running nested call (a
   * host-routed one sent meanwhile waits behind it).
   */
  #fast: LaneCall | undefined;
  #ended = false;

  constructor(options: NestedCallsOptions) {
    this.#options = options;
  }

  /** The nested call running in the worker now, if any: its tool and limits. */
  get running(): { tool: string; limits: Limits } | undefined {
    if (this.#fast !== undefined) return { tool: this.#fast.name, limits: this.#fast.limits };
    return this.#fifo[0]?.task;
  }

  /**
   * Whether the running nested call has run past its own time limit: the
   * script's watchdog that fires meanwhile stops a worker this call holds,
   * so the kill is this call's.
   */
  get runningPastLimit(): boolean {
    const running = this.running;
    return running !== undefined && this.#options.now() - this.#runningSince > running.limits.timeoutMs;
  }

  /**
   * When `tick` is to be called next: the running nested call's deadline
   * (the worker may first have to load the tool's module, under the load
   * limit: both parts are allowed, + the grace). Undefined when none runs,
   * once this module stopped the worker, or once the worker has ended.
   */
  get wakeAt(): number | undefined {
    const running = this.running;
    if (running === undefined || this.#stopped || this.#ended) return undefined;
    return this.#runningSince + this.#options.loadTimeoutMs + running.limits.timeoutMs + this.#options.watchdogGraceMs;
  }

  /** The session's timer fired: the worker is killed if the running nested call is past its deadline (a timer that fired early changes nothing). */
  tick(): void {
    const wakeAt = this.wakeAt;
    const running = this.running;
    if (wakeAt === undefined || running === undefined || this.#options.now() < wakeAt) return;
    this.#stopped = true;
    this.#options.kill(`the tool "${running.tool}" (called from a Code Mode script) ran past its ${running.limits.timeoutMs} ms limit and its worker did not stop it; the worker was killed`);
  }

  run(task: CallTask): Promise<NestedOutcome> {
    if (this.#ended) return Promise.resolve({ ok: false, kind: "cancelled", message: "the script's worker has ended" });
    return new Promise<NestedOutcome>((settle) => {
      const pending = { id: this.#nextId++, task, settle };
      this.#fifo.push(pending);
      this.#options.send(pending.id, task);
      if (this.#fifo.length === 1 && this.#fast === undefined) this.#startRunning();
    });
  }

  /** The worker's answer to nested call `id`: its task, or undefined if it is not the oldest (a broken worker). */
  replied(id: number, reply: CallReply): CallTask | undefined {
    const head = this.#fifo[0];
    if (head === undefined || head.id !== id) return undefined;
    this.#fifo.shift();
    head.settle({ ok: true, reply });
    this.#startRunning();
    return head.task;
  }

  /**
   * The worker is about to enter a lane call (its "lane" line): timed
   * from now like a host-routed one from when it became the oldest: the
   * tool's load limit + its own limit + the grace. False when one runs
   * already (a broken worker: it runs one nested call at a time).
   */
  laneStarted(call: LaneCall): boolean {
    if (this.#ended) return true;
    if (this.#fast !== undefined) return false;
    this.#fast = call;
    this.#startRunning();
    return true;
  }

  /** The record of lane call `id` arrived: it is over. False if it is not the one running (a broken worker). */
  laneEnded(id: string): boolean {
    if (this.#ended) return true;
    if (this.#fast?.id !== id) return false;
    this.#fast = undefined;
    this.#startRunning();
    return true;
  }

  /**
   * Runs `read` (the lines of a journal read at once): the memory watch
   * hears only what runs after it, since the calls that started and ended
   * between ran before it could read anything.
   */
  batch(read: () => void): void {
    this.#batching = true;
    try {
      read();
    } finally {
      this.#batching = false;
    }
    if (!this.#ended) this.#options.running(this.running?.limits);
  }

  #batching = false;

  /**
   * The nested calls changed: a call that starts running is timed from now
   * (one still running keeps its start: a host-routed reply read after a
   * lane call's "lane" line does not give that lane call more time); the
   * owner hears of it unless a journal read is under way.
   */
  #startRunning(): void {
    const current = this.#fast ?? this.#fifo[0];
    if (current !== this.#timed) {
      this.#timed = current;
      if (current !== undefined) this.#runningSince = this.#options.now();
    }
    if (!this.#batching) this.#options.running(this.running?.limits);
  }

  /** The nested call `#runningSince` is for (a lane call or a host-routed one), if one runs. */
  #timed: LaneCall | Pending | undefined;

  /** Set when the kill was this module's: the running nested call outlived its limit. */
  #stopped = false;

  /** Whether this module stopped the worker (a nested call outlived its limit). */
  get stoppedTheWorker(): boolean {
    return this.#stopped;
  }

  /**
   * The worker ended. `death` is the outcome of whatever was running; it goes
   * to the nested call that was running when `blameRunning` (the kill was
   * ours, or the worker died unasked while a nested call ran); every other
   * nested call is cancelled. Answers who was blamed, if anyone: a fast
   * call has no promise here, so its owner records the death (the strike).
   */
  end(death: Exclude<NestedOutcome, { ok: true }>, blameRunning: boolean): Blamed | undefined {
    if (this.#ended) return undefined;
    this.#ended = true;
    const fast = this.#fast;
    const pending = this.#fifo.splice(0);
    let blamed: Blamed | undefined;
    if (fast !== undefined && blameRunning) blamed = { tool: fast.name, fast: { tool: fast.tool, id: fast.id }, death };
    const [head, ...rest] = fast === undefined ? pending : [undefined, ...pending];
    if (head !== undefined && blameRunning) {
      head.settle(death);
      blamed = { tool: head.task.tool, death };
    } else {
      head?.settle({ ok: false, kind: "cancelled", message: "the script's worker was stopped before this call finished" });
    }
    for (const other of rest) other?.settle({ ok: false, kind: "cancelled", message: "the script's worker was stopped before this call ran" });
    return blamed;
  }
}
