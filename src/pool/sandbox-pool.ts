/**
 * @module src/pool/sandbox-pool
 * The host's side of the process boundary: a tinypool pool of sandbox worker
 * processes, and the second layer of every limit.
 *
 * ```
 * run(task) ─▶ tinypool queue ─▶ dispatched to a worker ── watchdog starts
 *                                   │ "started" {pid} ───── RSS watch starts
 *             ◀── Reply (zod) ──────┘
 * watchdog fires (limit + grace)  ─▶ abort ─▶ tinypool kills the worker ─▶ timeout
 * RSS above limit + slack         ─▶ abort ─▶ killed ─▶ memory
 * caller's signal                 ─▶ abort ─▶ killed (or dequeued) ─▶ cancelled
 * worker dies on its own          ─▶ exit code, signal, stderr ─▶ crash | memory
 * ```
 *
 * The watchdog's clock starts when tinypool hands the task to a worker (the
 * channel's onMessage hook is called right then, on this side), so it does
 * not depend on the worker's cooperation. Every task carries an abort
 * signal, and tinypool then runs it on a worker of its own: a kill ends one
 * call. The pool owns the tinypool instance and closes it in close().
 */
import { fileURLToPath } from "node:url";
import type { ChildProcess } from "node:child_process";
import Tinypool from "tinypool";
import type { Logger } from "pino";
import { Reply, StartedMessage, type Task } from "../../sandbox/protocol.js";
import { HostClosedError } from "../errors.js";
import { residentBytes } from "./process-memory.js";
import { diedOfMemory, WorkerProcess } from "./worker-process.js";

const WORKER_PATH = fileURLToPath(new URL("../../sandbox/worker/entry.js", import.meta.url));
/** The flags every worker runs with, whatever the host was started with. */
export const WORKER_EXEC_ARGV: readonly string[] = ["--no-node-snapshot"];
const RSS_SAMPLE_MS = 10;

export type SandboxPoolOptions = {
  workers: number;
  watchdogGraceMs: number;
  workerMemorySlackMb: number;
  worker: { maxWarmIsolates: number; maxWarmHeapMb: number; loadTimeoutMs: number };
  logger: Logger;
};

export type PoolFailureKind = "timeout" | "memory" | "crash" | "cancelled";
export type PoolOutcome =
  | { ok: true; reply: Reply }
  | { ok: false; kind: PoolFailureKind; message: string };

type RunLimits = { timeoutMs: number; memoryMb: number };

export class SandboxPool {
  readonly #pool: Tinypool;
  readonly #options: SandboxPoolOptions;
  readonly #workers = new Map<number, WorkerProcess>();
  readonly #inFlight = new Set<AbortController>();
  #closed = false;

  constructor(options: SandboxPoolOptions) {
    this.#options = options;
    this.#pool = new Tinypool({
      filename: WORKER_PATH,
      runtime: "child_process",
      minThreads: options.workers,
      maxThreads: options.workers,
      concurrentTasksPerWorker: 1,
      isolateWorkers: false,
      execArgv: [...WORKER_EXEC_ARGV],
      // Only what the worker needs: no NODE_OPTIONS, no secrets of the host.
      env: { CORRAL_WORKER_SETTINGS: JSON.stringify(options.worker) },
      terminateTimeout: 2_000,
    });
    // A worker that dies while idle is reported here; tinypool replaces it.
    // Without a listener, the 'error' event would throw in the host.
    this.#pool.on("error", (error: unknown) => {
      options.logger.warn({ err: error }, "a sandbox worker died while idle; it is replaced");
    });
  }

  get alive(): boolean {
    return !this.#closed;
  }

  get workerCount(): number {
    return this.#pool.threads.length;
  }

  async run(task: Task, limits: RunLimits, signal?: AbortSignal): Promise<PoolOutcome> {
    if (this.#closed) throw new HostClosedError("the sandbox pool");
    const controller = new AbortController();
    let stopped: { kind: PoolFailureKind; message: string } | undefined;
    let worker: WorkerProcess | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let rssWatch: NodeJS.Timeout | undefined;
    const stop = (kind: PoolFailureKind, message: string) => {
      if (stopped !== undefined) return;
      stopped = { kind, message };
      controller.abort();
    };
    const onCallerAbort = () => stop("cancelled", "the call was cancelled by its caller");
    if (signal?.aborted) return { ok: false, kind: "cancelled", message: "the call was cancelled before it started" };
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    this.#inFlight.add(controller);

    const channel = {
      onMessage: () => {
        // tinypool calls this as it hands the task to a worker: the clock starts.
        watchdog = setTimeout(
          () => stop("timeout", `the tool ran past its ${limits.timeoutMs} ms limit and its worker did not stop it; the worker was killed`),
          limits.timeoutMs + this.#options.watchdogGraceMs,
        );
      },
      postMessage: (message: unknown) => {
        const started = StartedMessage.safeParse(message);
        if (!started.success) return;
        worker = this.#adopt(started.data.pid);
        if (worker !== undefined) rssWatch = this.#watchMemory(worker.pid, limits.memoryMb, stop);
      },
    };

    try {
      const raw: unknown = await this.#pool.run(task, { signal: controller.signal, channel });
      const reply = Reply.safeParse(raw);
      if (!reply.success) return { ok: false, kind: "crash", message: "the sandbox worker answered with a malformed reply" };
      return { ok: true, reply: reply.data };
    } catch (error) {
      if (stopped !== undefined) return { ok: false, ...stopped };
      return this.#explainDeath(worker, error);
    } finally {
      clearTimeout(watchdog);
      clearInterval(rssWatch);
      signal?.removeEventListener("abort", onCallerAbort);
      this.#inFlight.delete(controller);
    }
  }

  /** Finds the worker that claims `pid` among tinypool's own children. */
  #adopt(pid: number): WorkerProcess | undefined {
    const known = this.#workers.get(pid);
    if (known !== undefined) return known;
    for (const thread of this.#pool.threads) {
      const child = (thread as unknown as { process?: ChildProcess }).process;
      if (thread.threadId === pid && child !== undefined && child.pid === pid) {
        const worker = new WorkerProcess(child, this.#options.logger);
        this.#workers.set(pid, worker);
        child.once("exit", () => this.#workers.delete(pid));
        return worker;
      }
    }
    // A pid that is not one of our children is never watched nor killed.
    return undefined;
  }

  #watchMemory(pid: number, memoryMb: number, stop: (kind: PoolFailureKind, message: string) => void): NodeJS.Timeout | undefined {
    const baseline = residentBytes(pid);
    if (baseline === undefined) return undefined;
    const ceiling = baseline + (memoryMb + this.#options.workerMemorySlackMb) * 1024 * 1024;
    const timer = setInterval(() => {
      const rss = residentBytes(pid);
      if (rss !== undefined && rss > ceiling) {
        stop("memory", `the tool's worker grew past its ${memoryMb} MB limit (resident ${Math.round(rss / 1048576)} MB) and was killed`);
      }
    }, RSS_SAMPLE_MS);
    timer.unref();
    return timer;
  }

  async #explainDeath(worker: WorkerProcess | undefined, error: unknown): Promise<PoolOutcome> {
    if (this.#closed) return { ok: false, kind: "cancelled", message: "the host was closed while the call ran" };
    if (worker === undefined) {
      return { ok: false, kind: "crash", message: `the sandbox worker failed: ${(error as Error)?.message ?? "unknown"}` };
    }
    const death = await worker.death();
    const how = death.signal !== null ? `signal ${death.signal}` : `exit code ${death.code ?? "unknown"}`;
    if (diedOfMemory(death.stderr)) {
      return { ok: false, kind: "memory", message: `the tool ran its worker out of memory (the worker died: ${how}); lower its memory use` };
    }
    return { ok: false, kind: "crash", message: `the sandbox worker died while running the tool (${how}); the worker was replaced` };
  }

  /** Ends every worker; calls in flight answer `cancelled`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inFlight) controller.abort();
    await this.#pool.destroy();
  }
}
