/**
 * @module src/pool/worker-process
 * What the host keeps of each sandbox worker process: how it ended (code,
 * signal) and the tail of its stderr (V8 and isolated-vm write fatal errors
 * there; a tool cannot, it has no console of its own there). tinypool pipes
 * a child's output into ours; we take it back into the log. The process
 * itself is reached only through tinypool-child.ts.
 */
import type { Logger } from "pino";
import type { TinypoolChild } from "./tinypool-child.js";

const STDERR_TAIL_CHARS = 4096;

export class WorkerProcess {
  readonly pid: number;
  readonly #child: TinypoolChild;
  #stderrTail = "";
  #onFatalMemory: (() => void) | undefined;
  #fatalMemorySeen = false;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Set on the child's "close": it exited, and its output and IPC channel were read to their end. */
  #closed = false;

  constructor(child: TinypoolChild, logger: Logger) {
    this.pid = child.pid;
    this.#child = child;
    child.onceExit((code, signal) => {
      this.#exit = { code, signal };
    });
    child.onceClose(() => {
      this.#closed = true;
    });
    for (const [name, stream] of [
      ["stdout", child.output?.stdout],
      ["stderr", child.output?.stderr],
    ] as const) {
      if (stream === undefined) continue;
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

  /**
   * Waits (briefly) for the process to exit and its output and IPC channel
   * to close, then says how it ended: what stderr said last is read only
   * once it closed, and every message the worker wrote before it died (a
   * Code Mode lane's records) has been handled once the channel closed,
   * though "exit" may come before them.
   */
  async death(maxWaitMs = 1_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    const output = this.#child.output;
    // Output already closed: the close event may have gone before this
    // process was adopted (a worker that died as it said ready).
    const closed = this.#closed || (output !== undefined && output.stdout?.closed !== false && output.stderr?.closed !== false && this.#exit !== undefined);
    if (!closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxWaitMs);
        this.#child.onceClose(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return { code: this.#exit?.code ?? null, signal: this.#exit?.signal ?? null, stderr: this.#stderrTail };
  }
}

/** V8 and isolated-vm's own words for running out of memory. */
export function diedOfMemory(stderr: string): boolean {
  return /out of memory|heap limit|allocation failed|is_heap_oom = 1|CALL_AND_RETRY_LAST|Last few GCs/i.test(stderr);
}
