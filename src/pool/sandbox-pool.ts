/**
 * @module src/pool/sandbox-pool
 * The host's side of the process boundary: sandbox worker processes run by
 * tinypool, one WorkerSession each, and the queue of tasks waiting for one.
 *
 * ```
 * run(task) ─▶ queue ─▶ pick a session (ready, least loaded, warm for the
 *                       tool if possible) ─▶ session.dispatch ─▶ worker
 *            ◀── PoolOutcome ◀── session settles the task
 * session ends ─▶ start a new serve task (tinypool hands it to the idle spare
 *                 process at once and forks a new spare) ─▶ requeue orphans
 * ```
 *
 * tinypool owns the processes: it forks them with fixed flags and a minimal
 * environment, kills one when its serve task is aborted, and replaces it. The
 * pool owns the tinypool instance and the sessions, and frees both in close().
 */
import { fileURLToPath } from "node:url";
import Tinypool from "tinypool";
import type { Logger } from "pino";
import type { Task } from "../../sandbox/protocol.js";
import { HostClosedError } from "../errors.js";
import { WorkerSession, type PendingTask, type PoolOutcome } from "./session.js";

export type { PoolFailureKind, PoolOutcome } from "./session.js";

const WORKER_PATH = fileURLToPath(new URL("../../sandbox/worker/entry.js", import.meta.url));
/** The flags every worker runs with, whatever the host was started with. */
export const WORKER_EXEC_ARGV: readonly string[] = ["--no-node-snapshot"];

export type SandboxPoolOptions = {
  /** Serving workers. */
  workers: number;
  /** Idle processes kept booted to replace a worker that dies. */
  spareWorkers: number;
  /** Tasks sent ahead to one worker (the next starts as the previous ends). */
  pipelineDepth: number;
  watchdogGraceMs: number;
  workerMemorySlackMb: number;
  worker: { maxWarmIsolates: number; maxWarmHeapMb: number; loadTimeoutMs: number; defaultMemoryMb: number };
  logger: Logger;
};

type Queued = PendingTask & { done: boolean; signal: AbortSignal | undefined; detach: () => void; session?: WorkerSession };

export class SandboxPool {
  readonly #tinypool: Tinypool;
  readonly #options: SandboxPoolOptions;
  readonly #sessions = new Set<WorkerSession>();
  readonly #queue: Queued[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: SandboxPoolOptions) {
    this.#options = options;
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
      terminateTimeout: 2_000,
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
      { watchdogGraceMs: this.#options.watchdogGraceMs, workerMemorySlackMb: this.#options.workerMemorySlackMb, logger: this.#options.logger },
      {
        ready: () => this.#pump(),
        ended: (ended, orphans) => this.#onEnded(ended, orphans),
      },
    );
    this.#sessions.add(session);
  }

  #onEnded(session: WorkerSession, orphans: PendingTask[]): void {
    this.#sessions.delete(session);
    const requeue = (orphans as Queued[]).filter((task) => !task.done);
    for (const task of requeue) delete task.session;
    this.#queue.unshift(...requeue);
    if (this.#closed) {
      this.#drainClosed();
      return;
    }
    this.#options.logger.warn({ event: "worker_end" }, "a sandbox worker ended; starting its replacement");
    this.#startSession();
    this.#pump();
  }

  run(task: Task, limits: { timeoutMs: number; memoryMb: number }, key: string, signal?: AbortSignal): Promise<PoolOutcome> {
    if (this.#closed) throw new HostClosedError("the sandbox pool");
    if (signal?.aborted) return Promise.resolve({ ok: false, kind: "cancelled", message: "the call was cancelled before it started" });
    return new Promise<PoolOutcome>((resolve) => {
      const onAbort = () => {
        if (queued.session !== undefined) queued.session.cancel(queued);
        else {
          const index = this.#queue.indexOf(queued);
          if (index >= 0) this.#queue.splice(index, 1);
          queued.settle({ ok: false, kind: "cancelled", message: "the call was cancelled while it waited for a worker" });
        }
      };
      const queued: Queued = {
        id: this.#nextId++,
        task,
        limits,
        key,
        signal,
        done: false,
        detach: () => signal?.removeEventListener("abort", onAbort),
        settle: (outcome) => {
          if (queued.done) return;
          queued.done = true;
          queued.detach();
          resolve(outcome);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(queued);
      this.#pump();
    });
  }

  /** Hands queued tasks to sessions: idle ones first, then pipelined up to the depth. */
  #pump(): void {
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as Queued;
      const session = this.#pick(next.key);
      if (session === undefined) return;
      this.#queue.shift();
      next.session = session;
      session.dispatch(next);
    }
  }

  #pick(key: string): WorkerSession | undefined {
    let best: WorkerSession | undefined;
    for (const session of this.#sessions) {
      if (!session.ready || session.load >= this.#options.pipelineDepth) continue;
      if (best === undefined || session.load < best.load || (session.load === best.load && session.warm.has(key) && !best.warm.has(key))) {
        best = session;
      }
    }
    return best;
  }

  #drainClosed(): void {
    for (const task of this.#queue.splice(0)) task.settle({ ok: false, kind: "cancelled", message: "the host was closed before the call ran" });
  }

  /** Ends every worker; calls in flight or waiting answer `cancelled`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#drainClosed();
    for (const session of this.#sessions) session.kill("cancelled", "the host was closed while the call ran");
    await this.#tinypool.destroy();
  }
}
