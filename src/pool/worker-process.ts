/**
 * @module src/pool/worker-process
 * What the host keeps of each sandbox worker process: its ChildProcess (to
 * read how it died) and the tail of its stderr (V8 and isolated-vm write
 * fatal errors there; a tool cannot, it has no console of its own there).
 * tinypool pipes a child's output into ours; we take it back into the log.
 */
import type { ChildProcess } from "node:child_process";
import type { Logger } from "pino";

const STDERR_TAIL_CHARS = 4096;

export class WorkerProcess {
  readonly pid: number;
  readonly #child: ChildProcess;
  #stderrTail = "";
  #onFatalMemory: (() => void) | undefined;
  #fatalMemorySeen = false;
  /** Set on the child's "close": it exited, and its output and IPC channel were read to their end. */
  #closed = false;

  constructor(child: ChildProcess, logger: Logger) {
    this.pid = child.pid ?? -1;
    this.#child = child;
    child.once("close", () => {
      this.#closed = true;
    });
    for (const [name, stream] of [
      ["stdout", child.stdout],
      ["stderr", child.stderr],
    ] as const) {
      if (stream === null) continue;
      stream.unpipe(name === "stdout" ? process.stdout : process.stderr);
      stream.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        if (name === "stderr") {
          this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
          if (!this.#fatalMemorySeen && diedOfMemory(this.#stderrTail)) {
            this.#fatalMemorySeen = true;
            this.#onFatalMemory?.();
          }
        }
        logger.debug({ worker: this.pid, stream: name, text: text.slice(0, 2000) }, "sandbox worker output");
      });
    }
  }

  /**
   * Called once when V8 reports a fatal out-of-memory on stderr. The process
   * may then hang rather than die (isolated-vm's catastrophic-error handler
   * needs the main thread, which a synchronous entry holds), so the host kills
   * it at once instead of waiting for the watchdog.
   */
  onFatalMemory(callback: () => void): void {
    this.#onFatalMemory = callback;
    if (this.#fatalMemorySeen) callback();
  }

  get exited(): boolean {
    return this.#child.exitCode !== null || this.#child.signalCode !== null;
  }

  /**
   * Waits (briefly) for the process's output and IPC channel to close, then
   * says how it ended. The channel closes once the host has read it to its
   * end: every message the worker wrote before it died (a Code Mode lane's
   * records) has been handled by then, though "exit" may come before them.
   */
  async death(maxWaitMs = 1_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    if (!this.#closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxWaitMs);
        this.#child.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return { code: this.#child.exitCode, signal: this.#child.signalCode, stderr: this.#stderrTail };
  }

  kill(): void {
    this.#child.kill("SIGKILL");
  }
}

/** V8 and isolated-vm's own words for running out of memory. */
export function diedOfMemory(stderr: string): boolean {
  return /out of memory|heap limit|allocation failed|is_heap_oom = 1|CALL_AND_RETRY_LAST|Last few GCs/i.test(stderr);
}
