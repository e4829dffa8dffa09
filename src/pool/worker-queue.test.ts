/**
 * @module src/pool/worker-queue.test
 * The session's queue of tasks given to its worker, alone: what a cancel
 * and a take-back do to it, and that the head is always the task the worker
 * runs (ghosts keep it so).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { PendingTask } from "./session.js";
import { WorkerQueue } from "./worker-queue.js";

const LIMITS = { timeoutMs: 100, memoryMb: 32, maxOutputBytes: 1024, maxDepth: 8 };

function pending(id: number, settled: string[] = []): PendingTask {
  const task = { type: "call" as const, callId: `c${id}`, bundle: { hash: "h", filename: "agent:t" }, tool: "t", inputJson: "{}", limits: LIMITS };
  return { id, task, limits: LIMITS, key: "k", settle: (outcome) => settled.push(`${id}:${outcome.ok ? "ok" : outcome.kind}`) };
}

function given(queue: WorkerQueue, ...tasks: PendingTask[]): boolean[] {
  return tasks.map((task) => queue.push(task, { id: task.id, task: task.task }));
}

describe("WorkerQueue", () => {
  it("asks for one flush per turn: the first task of an empty outbox", () => {
    const queue = new WorkerQueue();
    assert.deepEqual(given(queue, pending(1), pending(2)), [true, false]);
    assert.deepEqual(queue.takeOutbox().map((entry) => entry.id), [1, 2]);
    assert.deepEqual(given(queue, pending(3)), [true]);
    assert.equal(queue.head?.id, 1);
    assert.equal(queue.length, 3);
  });

  it("cancels by where the task is: unsent (gone), running (stop the worker), waiting (skip it), absent", () => {
    const queue = new WorkerQueue();
    const [a, b, c] = [pending(1), pending(2), pending(3)];
    given(queue, a, b);
    queue.takeOutbox();
    given(queue, c);
    assert.deepEqual(queue.cancel(c), { kind: "unsent", wasHead: false });
    assert.deepEqual(queue.cancel(a), { kind: "running" });
    assert.deepEqual(queue.cancel(b), { kind: "waiting" });
    assert.deepEqual(queue.cancel(c), { kind: "absent" });
    assert.deepEqual(queue.takeOutbox(), [], "the unsent one never leaves");
    assert.equal(queue.length, 2, "running and waiting ones stay until their replies");
    const lone = new WorkerQueue();
    const d = pending(4);
    given(lone, d);
    assert.deepEqual(lone.cancel(d), { kind: "unsent", wasHead: true });
    assert.equal(lone.head, undefined);
  });

  it("takes back all but the head: unsent ones leave, sent ones stay as ghosts to be skipped, each once", () => {
    const settled: string[] = [];
    const queue = new WorkerQueue();
    const [a, b, c] = [pending(1, settled), pending(2, settled), pending(3, settled)];
    given(queue, a, b);
    queue.takeOutbox();
    given(queue, c);
    const { taken, cancels } = queue.takeBack();
    assert.deepEqual(taken.map((task) => task.id), [2, 3]);
    assert.deepEqual(cancels, [2]);
    assert.equal(queue.length, 2, "the head and b's ghost");
    assert.deepEqual(queue.takeOutbox(), []);
    assert.deepEqual(queue.takeBack(), { taken: [], cancels: [] }, "a ghost is not taken twice");
    // Replies come in the worker's order: the head's, then the ghost's (ignored by whoever settles it).
    assert.equal(queue.shiftHead(2), undefined, "a reply out of order is refused");
    assert.equal(queue.shiftHead(1), a);
    const ghost = queue.shiftHead(2);
    assert.equal(ghost?.ghost, true);
    ghost?.settle({ ok: false, kind: "cancelled", message: "skipped" });
    assert.deepEqual(settled, [], "a ghost's settle reaches nobody: the task runs elsewhere");
  });

  it("drains everything when the worker ends", () => {
    const queue = new WorkerQueue();
    given(queue, pending(1), pending(2));
    assert.deepEqual(queue.drain().map((task) => task.id), [1, 2]);
    assert.equal(queue.length, 0);
    assert.deepEqual(queue.takeOutbox(), []);
  });
});
