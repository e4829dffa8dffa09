/**
 * @module sandbox/shared/fast-status
 * The layout of a fast lane's status file: which fast nested call a worker
 * is running now, written by the worker (sandbox/worker/fast-lane.ts) as each
 * call starts and ends, read by the host's session on its own clock every
 * 10 ms while the script runs (src/pool/session.ts). It is how the host
 * times a nested call it was never told of by message: a call the worker
 * runs on the fast lane has its status written first, so the host can stop
 * a worker that a fast call holds past its limit and blame that tool.
 *
 * ```
 * 4 float64s: [seq, tool index (-1: none running), started (ms since the epoch), seq]
 * ```
 * The sequence number is written first and last: a read that finds them
 * different raced a write and is skipped (the next sample reads it whole).
 * Writing it is a pwrite of 32 bytes to a file in memory (/dev/shm where
 * there is one), no message and no wake-up of the host.
 */
export const FAST_STATUS_BYTES = 32;

export type FastStatus = { seq: number; tool: number; startedAt: number };

export function encodeFastStatus(status: FastStatus, into: Float64Array): void {
  into[0] = status.seq;
  into[1] = status.tool;
  into[2] = status.startedAt;
  into[3] = status.seq;
}

/** The status in `from`, or undefined when the read was torn or the file is still empty. */
export function decodeFastStatus(from: Float64Array): FastStatus | undefined {
  const seq = from[0] ?? 0;
  if (seq === 0 || seq !== from[3]) return undefined;
  return { seq, tool: from[1] ?? -1, startedAt: from[2] ?? 0 };
}
