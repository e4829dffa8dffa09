/**
 * @module src/cli/closed-output
 * A reader that goes away is no failure of the command: `corral list |
 * head -1` and `corral --help | true` close stdout under it, and the next
 * write fails with EPIPE, which Node reports as an `error` event on the
 * stream. Unheard, that event kills the process with a stack trace and
 * leaves the command's workers to die with it.
 *
 * So the CLI listens on its own stdout and stderr, for the whole process.
 * An error on stdout aborts one signal, quietly (there is nowhere left to
 * say it): commands that serve until stopped (mcp, dashboard) and the demo
 * stop at it, since their answer has no reader any more. An error on stderr
 * is only swallowed: logs nobody reads are no reason to stop serving a
 * client that still talks on stdin and stdout. Every command closes its
 * host as it ends, and the exit code stays the command's own.
 */
let watched: AbortController | undefined;

export function outputClosedSignal(stdout: NodeJS.WritableStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): AbortSignal {
  if (watched !== undefined) return watched.signal;
  const controller = new AbortController();
  watched = controller;
  // Kept for the process's life: a late write's error (ERR_STREAM_DESTROYED after the EPIPE) must find them too.
  stdout.on("error", () => controller.abort());
  stderr.on("error", () => undefined);
  return controller.signal;
}

/** Resolves when `signal` aborts (at once if it already has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
