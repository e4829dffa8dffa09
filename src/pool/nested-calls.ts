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
 * session ends ─▶ the culprit gets the death's outcome, the rest `cancelled`
 * ```
 * The session owns one NestedCalls and ends it when the worker ends.
 */
import type { CallReply, CallTask } from "../../sandbox/protocol.js";

export type NestedOutcome = { ok: true; reply: CallReply } | { ok: false; kind: "timeout" | "memory" | "crash" | "cancelled"; message: string };

type Pending = { id: number; task: CallTask; settle: (outcome: NestedOutcome) => void };

export type NestedCallsOptions = {
  loadTimeoutMs: number;
  watchdogGraceMs: number;
  /** Writes a message to the worker (the session's channel; inline bundles handled there). */
  send(id: number, task: CallTask): void;
  /** Stops the worker because the running nested call outlived its limit. */
  kill(message: string): void;
  /** The nested call running now changed (undefined: none runs): the memory watch times each one's growth apart. */
  running(task: CallTask | undefined): void;
};

export class NestedCalls {
  readonly #options: NestedCallsOptions;
  readonly #fifo: Pending[] = [];
  #nextId = 0;
  #watchdog: NodeJS.Timeout | undefined;
  /** When the running nested call started (it became the oldest unanswered one). */
  #runningSince = 0;
  #ended = false;

  constructor(options: NestedCallsOptions) {
    this.#options = options;
  }

  /** The nested call running in the worker now, if any. */
  get running(): CallTask | undefined {
    return this.#fifo[0]?.task;
  }

  /**
   * Whether the running nested call has run past its own time limit: the
   * script's watchdog that fires meanwhile stops a worker this call holds,
   * so the kill is this call's.
   */
  get runningPastLimit(): boolean {
    const head = this.#fifo[0];
    return head !== undefined && performance.now() - this.#runningSince > head.task.limits.timeoutMs;
  }

  run(task: CallTask): Promise<NestedOutcome> {
    if (this.#ended) return Promise.resolve({ ok: false, kind: "cancelled", message: "the script's worker has ended" });
    return new Promise<NestedOutcome>((settle) => {
      const pending = { id: this.#nextId++, task, settle };
      this.#fifo.push(pending);
      this.#options.send(pending.id, task);
      if (this.#fifo.length === 1) this.#watchHead();
    });
  }

  /** The worker's answer to nested call `id`: false if it is not the oldest (a broken worker). */
  replied(id: number, reply: CallReply): boolean {
    const head = this.#fifo[0];
    if (head === undefined || head.id !== id) return false;
    this.#fifo.shift();
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    head.settle({ ok: true, reply });
    if (this.#fifo.length > 0) this.#watchHead();
    else this.#options.running(undefined);
    return true;
  }

  #watchHead(): void {
    const head = this.#fifo[0];
    if (head === undefined) return;
    const { timeoutMs } = head.task.limits;
    // The worker may first have to load the tool's module (under the load limit): both parts are allowed.
    const allowedMs = this.#options.loadTimeoutMs + timeoutMs + this.#options.watchdogGraceMs;
    this.#runningSince = performance.now();
    this.#options.running(head.task);
    clearTimeout(this.#watchdog);
    this.#watchdog = setTimeout(() => {
      this.#culprit = head;
      this.#options.kill(`the tool "${head.task.tool}" (called from a Code Mode script) ran past its ${timeoutMs} ms limit and its worker did not stop it; the worker was killed`);
    }, allowedMs);
  }

  /** Set when the kill was this module's: the nested call that outlived its limit. */
  #culprit: Pending | undefined;

  /** Whether this module stopped the worker (a nested call outlived its limit). */
  get stoppedTheWorker(): boolean {
    return this.#culprit !== undefined;
  }

  /**
   * The worker ended. `death` is the outcome of whatever was running; it goes
   * to the nested call that was running when `blameRunning` (the kill was
   * ours, or the worker died unasked while a nested call ran); every other
   * nested call is cancelled. Answers the tool blamed, if any.
   */
  end(death: Exclude<NestedOutcome, { ok: true }>, blameRunning: boolean): string | undefined {
    if (this.#ended) return undefined;
    this.#ended = true;
    clearTimeout(this.#watchdog);
    const [running, ...rest] = this.#fifo.splice(0);
    let blamed: string | undefined;
    if (running !== undefined && blameRunning) {
      running.settle(death);
      blamed = running.task.tool;
    } else {
      running?.settle({ ok: false, kind: "cancelled", message: "the script's worker was stopped before this call finished" });
    }
    for (const pending of rest) pending.settle({ ok: false, kind: "cancelled", message: "the script's worker was stopped before this call ran" });
    return blamed;
  }
}
