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
 * the session times its running task: the tool's load limit + its own limit
 * + the grace, then the worker is killed and the kill is charged to that
 * tool (its source gets the strike), not to the script.
 *
 * ```
 * run(task) ─▶ FIFO ─▶ {nested: {id, task}} ─▶ worker runs it (tool's limits)
 *   oldest: watchdog (load + limit + grace) ─▶ kill, culprit = this call
 *   {type: "nested", id, reply} ─▶ settles the oldest ─▶ next one is timed
 * fast lane: status file says "x runs" (read every 10 ms) ─▶ timed the same way from then
 * session ends ─▶ the culprit gets the death's outcome, the rest `cancelled`
 * ```
 * A fast nested call (sandbox/worker/fast-lane.ts) sends no message as it
 * starts; the worker writes it into the lane's status file first, and the
 * session reads that file on the host's clock, so no nested call runs that
 * the host cannot time, and a kill in one is charged to its tool here too.
 * The session owns one NestedCalls and ends it when the worker ends.
 */
import type { CallLimits, CallReply, CallTask, FastLane } from "../../sandbox/protocol.js";
import type { FastStatus } from "../../sandbox/shared/fast-status.js";

export type NestedOutcome = { ok: true; reply: CallReply } | { ok: false; kind: "timeout" | "memory" | "crash" | "cancelled"; message: string };

type Pending = { id: number; task: CallTask; settle: (outcome: NestedOutcome) => void };

/** A fast nested call the status file says runs: `tool` indexes the lane's tools. */
type FastRunning = { seq: number; tool: number; name: string; limits: Pick<CallLimits, "timeoutMs" | "memoryMb"> };

/** Whom a worker's death was charged to: a host-routed nested call (settled with it), or a fast one (`fast`: its index in the lane). */
export type Blamed = { tool: string; fast?: number; death: Exclude<NestedOutcome, { ok: true }> };

export type NestedCallsOptions = {
  loadTimeoutMs: number;
  watchdogGraceMs: number;
  /** Writes a message to the worker (the session's channel; inline bundles handled there). */
  send(id: number, task: CallTask): void;
  /** Stops the worker because the running nested call outlived its limit. */
  kill(message: string): void;
};

export class NestedCalls {
  readonly #options: NestedCallsOptions;
  readonly #fifo: Pending[] = [];
  #nextId = 0;
  #watchdog: NodeJS.Timeout | undefined;
  /** When the running nested call started (it became the oldest unanswered one, or the host first saw it run). */
  #runningSince = 0;
  /**
   * The fast call running in the worker, as the status file last said. The
   * worker runs nested calls one at a time, so while one runs, it is the
   * running nested call (a host-routed one sent meanwhile waits behind it).
   */
  #fast: FastRunning | undefined;
  #ended = false;

  constructor(options: NestedCallsOptions) {
    this.#options = options;
  }

  /** The nested call running in the worker now, if any: its tool and limits. */
  get running(): { tool: string; limits: Pick<CallLimits, "timeoutMs" | "memoryMb"> } | undefined {
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
    return running !== undefined && performance.now() - this.#runningSince > running.limits.timeoutMs;
  }

  /** Memory the running nested call may use, for the session's resident-memory watch. */
  get runningMemoryMb(): number {
    return this.running?.limits.memoryMb ?? 0;
  }

  run(task: CallTask): Promise<NestedOutcome> {
    if (this.#ended) return Promise.resolve({ ok: false, kind: "cancelled", message: "the script's worker has ended" });
    return new Promise<NestedOutcome>((settle) => {
      const pending = { id: this.#nextId++, task, settle };
      this.#fifo.push(pending);
      this.#options.send(pending.id, task);
      if (this.#fifo.length === 1 && this.#fast === undefined) this.#watchRunning();
    });
  }

  /** The worker's answer to nested call `id`: its task, or undefined if it is not the oldest (a broken worker). */
  replied(id: number, reply: CallReply): CallTask | undefined {
    const head = this.#fifo[0];
    if (head === undefined || head.id !== id) return undefined;
    this.#fifo.shift();
    head.settle({ ok: true, reply });
    if (this.#fast === undefined) this.#watchRunning();
    return head.task;
  }

  /**
   * What the script's fast lane status file says now (the session reads it
   * on its own clock every 10 ms): a fast call seen running for the first
   * time is timed from now, like a host-routed one from when it became the
   * oldest: the tool's load limit + its own limit + the grace.
   */
  observeFast(status: FastStatus | undefined, lane: FastLane): void {
    if (status === undefined || this.#ended) return;
    if (status.tool < 0) {
      if (this.#fast === undefined) return;
      this.#fast = undefined;
      this.#watchRunning();
      return;
    }
    if (this.#fast?.seq === status.seq) return;
    const tool = lane.tools[status.tool];
    if (tool === undefined) return;
    this.#fast = { seq: status.seq, tool: status.tool, name: tool.name, limits: tool.limits };
    this.#watchRunning();
  }

  /** (Re)starts the host's clock for the nested call running now, if any. */
  #watchRunning(): void {
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    const running = this.running;
    if (running === undefined) return;
    const { timeoutMs } = running.limits;
    // The worker may first have to load the tool's module (under the load limit): both parts are allowed.
    const allowedMs = this.#options.loadTimeoutMs + timeoutMs + this.#options.watchdogGraceMs;
    this.#runningSince = performance.now();
    this.#watchdog = setTimeout(() => {
      this.#stopped = true;
      this.#options.kill(`the tool "${running.tool}" (called from a Code Mode script) ran past its ${timeoutMs} ms limit and its worker did not stop it; the worker was killed`);
    }, allowedMs);
  }

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
    clearTimeout(this.#watchdog);
    const fast = this.#fast;
    const pending = this.#fifo.splice(0);
    let blamed: Blamed | undefined;
    if (fast !== undefined && blameRunning) blamed = { tool: fast.name, fast: fast.tool, death };
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
