/**
 * @module src/pool/sandbox-pool
 * The host's side of the process boundary: sandbox worker processes run by
 * tinypool, one WorkerSession each, and the queue of tasks waiting for one.
 *
 * ```
 * run(task) ─▶ queue ─▶ for each queued task, oldest first: the router picks
 *                       a session (the key's home, or a spill: affinity.ts)
 *                       or leaves it queued ─▶ session.dispatch ─▶ worker
 *            ◀── PoolOutcome ◀── session settles the task (the reply tells the
 *                                router what the worker keeps warm)
 * session ends ─▶ the router forgets it ─▶ start a new serve task (tinypool
 *                 hands it to the idle spare process at once and forks a new
 *                 spare) ─▶ requeue orphans
 * ```
 *
 * What goes where, and when tasks sent ahead come back, is the dispatcher's
 * to decide (dispatcher.ts, with the router's policy: affinity.ts); this
 * module carries it out and owns the timer that asks again.
 *
 * tinypool owns the processes: it forks them with fixed flags and a minimal
 * environment, kills one when its serve task is aborted, and replaces it. The
 * pool owns the tinypool instance and the sessions, and frees both in close().
 */
import { fileURLToPath } from "node:url";
import Tinypool from "tinypool";
import type { Logger } from "pino";
import { isolateKey } from "../../sandbox/shared/task-parts.js";
import type { Task, WarmTask } from "../../sandbox/shared/tasks.js";
import { HostClosedError } from "../errors.js";
import { AffinityRouter } from "./affinity.js";
import { Dispatcher, kindOf } from "./dispatcher.js";
import { STALL_MS } from "../../sandbox/shared/tuning.js";
import { LaneJournals } from "./lane-journal.js";
import { WorkerSession, type CapabilityHandler, type PendingTask, type PoolOutcome } from "./session.js";
import type { FastRecord } from "../../sandbox/shared/fast-lane-schemas.js";

export type { PoolFailureKind, PoolOutcome } from "./session.js";

const WORKER_PATH = fileURLToPath(new URL("../../sandbox/worker/entry.js", import.meta.url));
// Node 20's V8 (11.3) has ArrayBuffer.prototype.transfer and `detached` behind a flag (shipped in 11.4):
// with it a tool's structuredClone transfer and the streams' BYOB reads detach buffers as the standards say.
// The flag is V8 11's only: a later V8 refuses it as an unknown option.
const TRANSFER_FLAG = Number(process.versions.v8.split(".")[0]) === 11 ? ["--harmony-rab-gsab-transfer"] : [];

/** The flags every worker runs with, whatever the host was started with. */
export const WORKER_EXEC_ARGV: readonly string[] = ["--no-node-snapshot", ...TRANSFER_FLAG];

export type SandboxPoolOptions = {
  /** Serving workers. */
  workers: number;
  /** Idle processes kept booted to replace a worker that dies. */
  spareWorkers: number;
  /** Tasks sent ahead to one worker (the next starts as the previous ends). */
  pipelineDepth: number;
  /** Tasks sent ahead to one worker while all are calls known to be quick (they share messages). */
  quickPipelineDepth: number;
  watchdogGraceMs: number;
  workerMemorySlackMb: number;
  worker: { maxWarmIsolates: number; maxWarmHeapMb: number; loadTimeoutMs: number; defaultMemoryMb: number };
  logger: Logger;
  /** Performs tools' capability requests (fetch, ctx.fs, ctx.state); without it they go unanswered. */
  capabilities?: CapabilityHandler;
  /** Takes the records of Code Mode scripts' fast nested calls (src/codemode). */
  fastRecords?: (callId: string, records: FastRecord[]) => void;
  /** Told each time a worker that ended is replaced (telemetry counts restarts). */
  onWorkerRestart?: () => void;
};

type Queued = PendingTask & {
  done: boolean;
  signal: AbortSignal | undefined;
  detach: () => void;
  worker?: WorkerSession;
  /** As the router judged it when the task was sent. */
  mayBeSlow: boolean;
};

export class SandboxPool {
  readonly #tinypool: Tinypool;
  readonly #options: SandboxPoolOptions;
  readonly #sessions = new Set<WorkerSession>();
  readonly #journals = new LaneJournals();
  readonly #router: AffinityRouter<WorkerSession>;
  readonly #dispatcher: Dispatcher<Queued, WorkerSession>;
  readonly #send = (task: Queued) => task.worker?.dispatch(task);
  /** Pumps again while tasks wait, so a home that stalls meanwhile lets them go elsewhere. */
  #stallCheck: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SandboxPoolOptions) {
    this.#options = options;
    this.#router = new AffinityRouter({ pipelineDepth: options.pipelineDepth, quickPipelineDepth: options.quickPipelineDepth, stallMs: STALL_MS });
    this.#dispatcher = new Dispatcher(this.#router, options.quickPipelineDepth);
    const processes = options.workers + options.spareWorkers;
    this.#tinypool = new Tinypool({
      filename: WORKER_PATH,
      runtime: "child_process",
      minThreads: processes,
      maxThreads: processes,
      concurrentTasksPerWorker: 1,
      isolateWorkers: false,
      execArgv: [...WORKER_EXEC_ARGV],
      // Only what the worker needs: no NODE_OPTIONS, no secrets of the host.
      env: { CORRAL_WORKER_SETTINGS: JSON.stringify(options.worker) },
      // No terminateTimeout: past it tinypool rejects a promise nobody
      // handles (an unhandled rejection would end the host). It sends SIGKILL
      // one second after SIGTERM anyway.
    });
    // A spare that dies while idle is reported here; tinypool replaces it.
    // Without a listener, the 'error' event would throw in the host.
    this.#tinypool.on("error", (error: unknown) => {
      options.logger.warn({ err: error }, "an idle sandbox worker died; it is replaced");
    });
    for (let i = 0; i < options.workers; i++) this.#startSession();
  }

  get alive(): boolean {
    return !this.#closed;
  }

  /** Sessions serving now (ready or booting). */
  get workerCount(): number {
    return this.#sessions.size;
  }

  #startSession(): void {
    const session = new WorkerSession(
      this.#tinypool,
      {
        watchdogGraceMs: this.#options.watchdogGraceMs,
        workerMemorySlackMb: this.#options.workerMemorySlackMb,
        loadTimeoutMs: this.#options.worker.loadTimeoutMs,
        logger: this.#options.logger,
        journals: this.#journals,
      },
      {
        ready: (ready) => {
          this.#router.progressed(ready);
          this.#pump();
        },
        ended: (ended, orphans) => this.#onEnded(ended, orphans),
        // A script's nested call ran in its worker: that isolate is warm there now.
        nestedReplied: (replied, task, reply) => this.#router.replied(replied, isolateKey(task.bundle, task.limits.memoryMb, task.tool, task.scope), reply),
        ...(this.#options.capabilities === undefined ? {} : { capability: this.#options.capabilities }),
        ...(this.#options.fastRecords === undefined ? {} : { fastRecords: this.#options.fastRecords }),
      },
    );
    this.#sessions.add(session);
  }

  #onEnded(session: WorkerSession, orphans: PendingTask[]): void {
    this.#sessions.delete(session);
    this.#router.forget(session);
    this.#dispatcher.requeue((orphans as Queued[]).filter((task) => !task.done));
    if (this.#closed) {
      this.#drainClosed();
      return;
    }
    this.#options.logger.warn({ event: "worker_end" }, "a sandbox worker ended; starting its replacement");
    this.#options.onWorkerRestart?.();
    this.#startSession();
    this.#pump();
  }

  run(task: Task, limits: { timeoutMs: number; memoryMb: number }, key: string, signal?: AbortSignal): Promise<PoolOutcome> {
    if (this.#closed) throw new HostClosedError("the sandbox pool");
    if (signal?.aborted) return Promise.resolve({ ok: false, kind: "cancelled", message: "the call was cancelled before it started" });
    return new Promise<PoolOutcome>((resolve) => {
      const onAbort = () => {
        if (queued.worker !== undefined) queued.worker.cancel(queued);
        else {
          this.#dispatcher.dequeue(queued);
          queued.settle({ ok: false, kind: "cancelled", message: "the call was cancelled while it waited for a worker" });
        }
      };
      const queued: Queued = {
        id: this.#dispatcher.nextId(),
        task,
        limits,
        key,
        signal,
        done: false,
        mayBeSlow: true,
        detach: () => signal?.removeEventListener("abort", onAbort),
        settle: (outcome) => {
          if (queued.done) return;
          if (queued.worker !== undefined) {
            this.#router.settled(queued.worker, key, kindOf(task), queued.mayBeSlow);
            if (outcome.ok) this.#router.replied(queued.worker, key, outcome.reply);
          }
          queued.done = true;
          queued.detach();
          resolve(outcome);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#dispatcher.enqueue(queued);
      this.#pump();
    });
  }

  /**
   * Builds a tool's isolate ahead of its first call, in the worker its calls
   * will go to, unless a worker is its home already; undefined then. A hint:
   * its outcome only says how it went (a first call meets the same failure).
   */
  warmAhead(task: WarmTask): Promise<PoolOutcome> | undefined {
    const key = isolateKey(task.bundle, task.limits.memoryMb, task.tool);
    if (this.#closed || this.#router.home(key) !== undefined) return undefined;
    return this.run(task, task.limits, key);
  }

  /** Sends what can go now (the dispatcher decides), and asks again in a while if anything waits or was sent ahead. */
  #pump(): void {
    this.#dispatcher.plan(this.#sessions, this.#send);
    if (this.#stallCheck === undefined && !this.#closed && this.#dispatcher.needsStallCheck(this.#sessions)) {
      this.#stallCheck = setTimeout(() => {
        this.#stallCheck = undefined;
        const taken = this.#dispatcher.takeBackStalled(this.#sessions);
        if (taken > 0) this.#options.logger.debug({ event: "tasks_taken_back", count: taken }, "tasks sent ahead to a stalled worker go elsewhere");
        this.#pump();
      }, STALL_MS);
      this.#stallCheck.unref();
    }
  }

  #drainClosed(): void {
    for (const task of this.#dispatcher.drain()) task.settle({ ok: false, kind: "cancelled", message: "the host was closed before the call ran" });
  }

  /** Ends every worker; calls in flight or waiting answer `cancelled`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#stallCheck);
    this.#drainClosed();
    const sessions = [...this.#sessions];
    for (const session of sessions) session.kill("cancel", "the host was closed while the call ran");
    await this.#tinypool.destroy();
    // The sessions read their journals as their workers end: removed once none is left.
    await Promise.all(sessions.map((session) => session.closed));
    this.#journals.close();
  }
}
