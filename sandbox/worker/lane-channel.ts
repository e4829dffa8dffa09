/**
 * @module sandbox/worker/lane-channel
 * Whether a message this worker sent is out of the process: what a fast
 * lane's records and "lane" messages need (sandbox/worker/fast-lane.ts),
 * since a worker may be killed at any moment after them.
 *
 * `process.send` on the IPC channel (Node's `target._send`, in
 * lib/internal/child_process.js) writes the message through StreamBase,
 * which tries the write at once (`uv_try_write`): when nothing is queued
 * and the socket has room, the whole message is in the kernel's socket
 * buffer before `send` returns, and the host reads it even after this
 * process dies. When the socket is full (the host has not read for a while:
 * about 120 KB of messages here), the rest waits in libuv's write queue, in
 * this process, as a pending write request; a kill then loses it. Such a
 * request is listed by `process.getActiveResourcesInfo()` ("…WriteWrap"),
 * and `send`'s callback runs once it is written.
 * Measured (test: sandbox/worker/lane-channel.test.ts): with the host
 * reading, every send is written at once; with the host busy, the writes
 * queue after ~260 messages of ~450 bytes, and are listed as pending.
 */
import type { WorkerMessage } from "../shared/session-messages.js";

/** Whether a write of this process waits in its own queue (not in the kernel yet). */
export function writesPending(): boolean {
  for (const name of process.getActiveResourcesInfo()) if (name.endsWith("WriteWrap")) return true;
  return false;
}

/**
 * Sends `message` to the host: undefined when it (and everything before it)
 * is written to the socket now; otherwise a promise that settles once it
 * is. Without an IPC channel (in-process tests) there is nothing to lose.
 */
export function sendWritten(message: WorkerMessage): Promise<void> | undefined {
  if (process.send === undefined) return undefined;
  let written!: () => void;
  const settled = new Promise<void>((resolve) => {
    written = resolve;
  });
  // The callback also runs when the write failed (the host is gone): nothing waits for ever.
  process.send(message, undefined, undefined, () => written());
  return writesPending() ? settled : undefined;
}
