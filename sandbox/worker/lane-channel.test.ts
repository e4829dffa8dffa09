import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";

/**
 * The claim fast-lane.ts rests on, checked with a real IPC channel: a
 * message `sendWritten` reports written (undefined) reaches the parent even
 * when the child is killed at once after it, and one that had to wait in the
 * child's own write queue is reported so (a promise, settled once written).
 * The parent stops reading (a busy event loop) while the child sends, so
 * the socket fills as it would behind a busy host.
 */
const MODULE = new URL("./lane-channel.js", import.meta.url).href;

type Seen = { messages: number[]; queuedFrom: number | undefined; exit: NodeJS.Signals | null };

/** Runs the child: it sends `count` messages, then reports or kills itself; the parent is busy for `busyMs` meanwhile. */
function run(count: number, thenKill: boolean, busyMs: number): Promise<Seen> {
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { sendWritten } from ${JSON.stringify(MODULE)};
      process.once("message", async () => {
        const padding = "x".repeat(400);
        let queuedFrom, last;
        for (let i = 0; i < ${count}; i++) {
          const written = sendWritten({ corral: 1, type: "lane", callId: padding, id: String(i), tool: 0 });
          if (written !== undefined) { queuedFrom ??= i; last = written; }
          // Only what was reported written is sure to survive a kill: stop there.
          if (${thenKill} && written !== undefined) break;
        }
        if (${thenKill}) {
          (await import("node:fs")).writeSync(2, "queued from " + queuedFrom + "\\n");
          process.kill(process.pid, "SIGKILL");
        }
        await last;
        process.send({ queuedFrom: queuedFrom ?? -1 });
        process.disconnect();
      });`,
    ],
    { stdio: ["ignore", "inherit", "pipe", "ipc"] },
  );
  const seen: Seen = { messages: [], queuedFrom: undefined, exit: null };
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    const queued = /queued from (\d+)/.exec(stderr);
    if (queued !== null) seen.queuedFrom = Number(queued[1]);
  });
  child.on("message", (message: { id?: string; queuedFrom?: number }) => {
    if (message.id !== undefined) seen.messages.push(Number(message.id));
    if (message.queuedFrom !== undefined) seen.queuedFrom = message.queuedFrom;
  });
  return new Promise((resolve) => {
    child.on("spawn", () => {
      child.send("go");
      // The parent reads nothing while it is busy: the child's socket fills.
      const until = Date.now() + busyMs;
      while (Date.now() < until);
    });
    child.on("close", (_code, signal) => resolve({ ...seen, exit: signal }));
  });
}

describe("lane-channel: what was reported written survives the worker", { timeout: 60_000 }, () => {
  it("reports a send written at once while the socket has room, and a promise once it is full; every message arrives in order", async () => {
    const seen = await run(3_000, false, 1_000);
    assert.equal(seen.messages.length, 3_000);
    assert.deepEqual(seen.messages.slice(0, 5), [0, 1, 2, 3, 4]);
    assert.ok(seen.messages.every((id, i) => id === i), "in order");
    // Hundreds fit in the socket's buffer before any write waits in the child.
    assert.ok(seen.queuedFrom !== undefined && seen.queuedFrom > 10 && seen.queuedFrom < 3_000, `queued from message ${seen.queuedFrom}`);
  });

  it("a child killed right after its last written send: the parent reads every message it was told was written", async () => {
    const seen = await run(3_000, true, 1_000);
    assert.equal(seen.exit, "SIGKILL");
    const queuedFrom = seen.queuedFrom ?? 0;
    assert.ok(queuedFrom > 10, `queued from message ${seen.queuedFrom}`);
    // Every message reported written arrived, in order; the one that was not (the last sent) may be lost.
    assert.ok(seen.messages.length >= queuedFrom, `${seen.messages.length} of ${queuedFrom} written messages arrived`);
    assert.ok(seen.messages.every((id, i) => id === i));
  });
});
