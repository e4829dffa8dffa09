/**
 * @module src/pool/dispatcher.test
 * The pool's decisions on fake workers and a clock of numbers: what goes
 * where, what waits, and what comes back from a stalled worker.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Task } from "../../sandbox/shared/tasks.js";
import { AffinityRouter } from "./affinity.js";
import { Dispatcher, type Placeable } from "./dispatcher.js";

const LIMITS = { timeoutMs: 100, memoryMb: 32, maxOutputBytes: 1024, maxDepth: 8 };
const STALL_MS = 50;

type Job = Placeable<Worker> & { name: string };
/** A worker that holds what it is sent, in order; `takeBack` gives back all but its head. */
class Worker {
  ready = true;
  readonly held: Job[] = [];
  constructor(readonly name: string) {}
  get load(): number {
    return this.held.length;
  }
  takeBack(): Job[] {
    return this.held.splice(1);
  }
}

function setUp(pipelineDepth = 2) {
  let now = 0;
  const router = new AffinityRouter<Worker>({ pipelineDepth, quickPipelineDepth: pipelineDepth, stallMs: STALL_MS, now: () => now });
  const dispatcher = new Dispatcher<Job, Worker>(router, pipelineDepth);
  const a = new Worker("a");
  const b = new Worker("b");
  const workers = [a, b];
  const job = (name: string, key = name): Job => {
    const task: Task = { type: "call", callId: name, bundle: { hash: "h", filename: "agent:t" }, tool: key, inputJson: "{}", limits: LIMITS };
    return { id: dispatcher.nextId(), task, key, mayBeSlow: true, name };
  };
  /** Plans, sending each task to its worker; answers "job→worker" in the order sent. */
  const pump = (): string[] => {
    const sent: string[] = [];
    dispatcher.plan(workers, (task) => {
      task.worker?.held.push(task);
      sent.push(`${task.name}→${task.worker?.name}`);
    });
    return sent;
  };
  /** The worker answers its head. */
  const answer = (worker: Worker) => {
    const head = worker.held.shift();
    assert.ok(head !== undefined);
    router.settled(worker, head.key, "call", head.mayBeSlow);
    router.replied(worker, head.key, { type: "call", kind: "ok", metrics: { wallMs: 5, cpuMs: 5, heapBytes: 1 }, warm: true, envelopeJson: "{}" });
    router.progressed(worker);
  };
  return { dispatcher, router, a, b, workers, job, pump, answer, tick: (ms: number) => (now += ms) };
}

describe("Dispatcher", () => {
  it("sends each key to its home, a new key to the least busy worker, and keeps what has no room queued", () => {
    const { dispatcher, job, pump } = setUp();
    dispatcher.enqueue(job("x1", "x"));
    dispatcher.enqueue(job("y1", "y"));
    assert.deepEqual(pump(), ["x1→a", "y1→b"]);
    for (const name of ["x2", "x3", "x4"]) dispatcher.enqueue(job(name, "x"));
    // x's home has room for one more (pipeline depth 2); b is busy with y, so x3 and x4 wait.
    assert.deepEqual(pump(), ["x2→a"]);
    assert.equal(dispatcher.waiting, 2);
    assert.equal(dispatcher.needsStallCheck([]), true, "tasks wait: the pool must look again");
  });

  it("lets a task pass older ones that wait for their own busy home", () => {
    const { dispatcher, job, pump, answer, a } = setUp();
    dispatcher.enqueue(job("x1", "x"));
    dispatcher.enqueue(job("y1", "y"));
    assert.deepEqual(pump(), ["x1→a", "y1→b"]);
    dispatcher.enqueue(job("x2", "x"));
    assert.deepEqual(pump(), ["x2→a"], "x's home has room and no worker idles");
    dispatcher.enqueue(job("x3", "x"));
    dispatcher.enqueue(job("z1", "z"));
    // x3 waits for a (full, not stalled; b is neither warm for x nor idle); z1, a new key, goes to b.
    assert.deepEqual(pump(), ["z1→b"]);
    answer(a);
    assert.deepEqual(pump(), ["x3→a"]);
  });

  it("takes back what was sent ahead to a stalled worker, oldest first with new ids, only while another worker moves", () => {
    const { dispatcher, job, pump, tick, a, b, workers, answer } = setUp();
    dispatcher.enqueue(job("x1", "x"));
    dispatcher.enqueue(job("y1", "y"));
    assert.deepEqual(pump(), ["x1→a", "y1→b"]);
    dispatcher.enqueue(job("x2", "x"));
    assert.deepEqual(pump(), ["x2→a"]);
    tick(STALL_MS);
    // Both stalled: nothing would move elsewhere, so nothing comes back.
    assert.equal(dispatcher.takeBackStalled(workers), 0);
    answer(b);
    const before = a.held[1]?.id;
    assert.equal(dispatcher.takeBackStalled(workers), 1);
    assert.deepEqual(a.held.map((task) => task.name), ["x1"], "the running task stays");
    assert.equal(dispatcher.waiting, 1);
    assert.deepEqual(pump(), ["x2→b"], "the task taken back goes to the worker that moves");
    assert.notEqual(b.held[0]?.id, before, "a new id: the stalled worker may still see the old one");
  });

  it("requeues a dead worker's tasks before those waiting, and a cancel takes a waiting task out", () => {
    const { dispatcher, job, pump, workers } = setUp();
    for (const worker of workers) worker.ready = false;
    const waiting = job("w1", "w");
    dispatcher.enqueue(waiting);
    const orphan = job("o1", "o");
    orphan.worker = workers[0];
    dispatcher.requeue([orphan]);
    assert.equal(orphan.worker, undefined, "it belongs to no worker any more");
    assert.deepEqual(pump(), [], "no worker is ready");
    for (const worker of workers) worker.ready = true;
    assert.equal(dispatcher.dequeue(waiting), true);
    assert.equal(dispatcher.dequeue(waiting), false);
    assert.deepEqual(pump(), ["o1→a"]);
    assert.deepEqual(dispatcher.drain(), []);
  });
});
