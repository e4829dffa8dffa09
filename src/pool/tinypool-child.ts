/**
 * @module src/pool/tinypool-child
 * The one place the host reaches a tinypool worker process. Everything the
 * host needs of it comes through tinypool's public API or /proc, except the
 * child's output streams:
 *
 * ```
 * which worker        thread.threadId (the child's pid under runtime
 *                     "child_process") = the pid the worker's `ready` names,
 *                     checked in /proc: a child of this process, tinypool's entry
 * how it ended        thread.once("exit" | "close"): TinypoolWorker hands these
 *                     to the ChildProcess, so they carry (code, signal)
 * V8's dying words    the child's stdout/stderr: PRIVATE (`thread.process`), below
 * ```
 *
 * Why the streams cannot be had otherwise (tinypool 2.2): its ProcessWorker
 * forks with `stdio: "pipe"` whatever the options say, pipes both streams
 * into this process's own stdout and stderr, and keeps the ChildProcess in a
 * field no option or event hands out. V8 writes a fatal out-of-memory report
 * to fd 2 from native code as the process dies (or hangs: see
 * worker-process.ts), so the worker cannot send it itself, and Node cannot
 * point a process's fd 2 elsewhere once it runs. What tinypool would need
 * to offer: a `stdio` option or the worker's streams (an event as it forks).
 * Until then the read is this one property path, checked at run time, and
 * answers undefined should a tinypool release move it: the host then loses
 * only the stderr evidence (a fatal OOM reads as a crash, after the
 * watchdog), never the worker.
 */
import { Readable } from "node:stream";
import type { TinypoolWorker } from "tinypool";
import { isOwnWorkerProcess } from "./process-memory.js";

export type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;

/** A sandbox worker process that tinypool started for this host. */
export type TinypoolChild = {
  readonly pid: number;
  /** The child's output, or undefined if this tinypool keeps it elsewhere. */
  readonly output: { readonly stdout: Readable | undefined; readonly stderr: Readable | undefined } | undefined;
  /** The process exited (its output may still be open). */
  onceExit(listener: ExitListener): void;
  /** The process exited and its output closed. */
  onceClose(listener: () => void): void;
};

/**
 * The thread among `threads` whose process has `pid`, or undefined: a pid
 * that is not tinypool's child of this process is never watched nor killed.
 */
export function findTinypoolChild(threads: readonly TinypoolWorker[], pid: number): TinypoolChild | undefined {
  const thread = threads.find((candidate) => candidate.runtime === "child_process" && candidate.threadId === pid);
  // Where /proc answers, it must agree; a child already reaped has no entry,
  // and tinypool's own list is then the evidence.
  if (thread === undefined || isOwnWorkerProcess(pid) === false) return undefined;
  return {
    pid,
    output: outputOf(thread),
    onceExit(listener) {
      thread.once("exit", (code: unknown, signal: unknown) => listener(typeof code === "number" ? code : null, typeof signal === "string" ? (signal as NodeJS.Signals) : null));
    },
    onceClose(listener) {
      thread.once("close", () => listener());
    },
  };
}

/** THE private read (see the module comment): `thread.process.stdout` and `.stderr`, nothing else. */
function outputOf(thread: TinypoolWorker): TinypoolChild["output"] {
  const child: unknown = Reflect.get(thread, "process");
  if (typeof child !== "object" || child === null) return undefined;
  const stream = (name: "stdout" | "stderr") => {
    const value: unknown = Reflect.get(child, name);
    return value instanceof Readable ? value : undefined;
  };
  return { stdout: stream("stdout"), stderr: stream("stderr") };
}
