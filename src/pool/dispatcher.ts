/**
 * @module src/pool/dispatcher
 * The pool's decisions, apart from its processes and timers: which queued
 * task goes to which worker now (the router's policy, affinity.ts, applied
 * to the queue oldest first), when the queue must be looked at again, and
 * which workers' tasks sent ahead come back because their running task
 * stalled. Pure: the clock is the router's and the workers are anything
 * with `ready`, `load` and `takeBack`, so it is tested alone with a fake
 * clock and fake workers (dispatcher.test.ts); the pool carries out what it
 * answers (sandbox-pool.ts).
 *
 * ```
 * enqueue / requeue ─▶ queue ─▶ plan(workers): [task → worker]… (the rest wait)
 * the pool's timer (STALL_MS) ─▶ takeBackStalled(workers): tasks to the queue's front
 * ```
 * A task may pass older ones that wait for their own home: each worker still
 * runs what it is sent in order, and a waiting task is sent as soon as its
 * home has room, or elsewhere once its home stalls or another worker idles.
 */
import type { Task } from "../../sandbox/shared/tasks.js";
import type { AffinityRouter, RouteTarget, TaskKind } from "./affinity.js";

/** A task the dispatcher places: its key (which warm isolate it wants), its kind, and what the router said of it when sent. */
export type Placeable<W> = { id: number; task: Task; key: string; worker?: W; mayBeSlow: boolean };

/** A worker as the dispatcher sees it: the router's view, and the tasks sent ahead it can give back (ones this dispatcher sent it). */
export type DispatchWorker = RouteTarget & { takeBack(): object[] };

export class Dispatcher<T extends Placeable<W>, W extends DispatchWorker> {
  readonly #router: AffinityRouter<W>;
  readonly #maxDepth: number;
  readonly #queue: T[] = [];
  #nextId = 0;

  /** `maxDepth`: the most tasks any worker may hold (the router's deepest pipeline). */
  constructor(router: AffinityRouter<W>, maxDepth: number) {
    this.#router = router;
    this.#maxDepth = maxDepth;
  }

  /** A new id, in submission order (tasks taken back get new ones: the worker they left may still see their old one). */
  nextId(): number {
    return this.#nextId++;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  enqueue(task: T): void {
    this.#queue.push(task);
  }

  /** Tasks to run before any waiting one (a dead worker's, oldest first). */
  requeue(tasks: T[]): void {
    for (const task of tasks) delete task.worker;
    this.#queue.unshift(...tasks);
  }

  /** Takes a task out of the queue (its caller gave up); false if it is not waiting. */
  dequeue(task: T): boolean {
    const index = this.#queue.indexOf(task);
    if (index < 0) return false;
    this.#queue.splice(index, 1);
    return true;
  }

  /** Every waiting task, taken out (the pool is closing). */
  drain(): T[] {
    return this.#queue.splice(0);
  }

  /**
   * Sends what can go now, oldest first: each task placed is taken out of
   * the queue, its `worker` and `mayBeSlow` set, the router told, and
   * handed to `send`, which must give it to that worker before this goes on
   * (the router reads the worker's `load`). A task whose home is busy stays
   * queued and the ones behind it may go meanwhile.
   */
  plan(workers: Iterable<W>, send: (task: T) => void): void {
    // The common case on the warm path: a reply came and nothing waits.
    if (this.#queue.length === 0) return;
    const all = [...workers];
    const waiting = new Map<string, number>();
    // Calls only: a warm-up queued with its tool's first call is not a hot key.
    for (const task of this.#queue) if (kindOf(task.task) === "call") waiting.set(task.key, (waiting.get(task.key) ?? 0) + 1);
    for (let i = 0; i < this.#queue.length; ) {
      // Every worker full: nothing behind can go either (a long queue under load).
      if (!this.#anyRoom(all)) break;
      const next = this.#queue[i] as T;
      const kind = kindOf(next.task);
      const worker = this.#router.pick(all, next.key, { isolate: kind !== "load", waiting: waiting.get(next.key) ?? 1 });
      if (worker === undefined) {
        i++;
        continue;
      }
      if (kind === "call") waiting.set(next.key, (waiting.get(next.key) ?? 1) - 1);
      this.#queue.splice(i, 1);
      next.worker = worker;
      next.mayBeSlow = this.#router.dispatched(worker, next.key, kind);
      send(next);
    }
  }

  #anyRoom(workers: W[]): boolean {
    for (const worker of workers) if (worker.ready && worker.load < this.#maxDepth) return true;
    return false;
  }

  /** Whether the queue must be looked at again in a while: tasks wait, or some worker holds tasks sent ahead. */
  needsStallCheck(workers: Iterable<W>): boolean {
    if (this.#queue.length > 0) return true;
    for (const worker of workers) if (worker.load > 1) return true;
    return false;
  }

  /**
   * Tasks sent ahead to a worker whose running task turned slow go back to
   * the front of the queue, oldest first, to run elsewhere (a quick tool
   * that hangs once would otherwise hold up to quickPipelineDepth - 1
   * calls). Not while no other worker moves: they would only queue again
   * behind the same slow one. Answers how many came back.
   */
  takeBackStalled(workers: Iterable<W>): number {
    const all = [...workers];
    if (!all.some((worker) => worker.ready && !this.#router.stalled(worker))) return 0;
    const taken: T[] = [];
    for (const worker of all) {
      if (worker.load < 2 || !this.#router.stalled(worker)) continue;
      for (const task of worker.takeBack() as T[]) {
        this.#router.settled(worker, task.key, kindOf(task.task), task.mayBeSlow);
        taken.push(task);
      }
    }
    taken.sort((a, b) => a.id - b.id);
    for (const task of taken) task.id = this.nextId();
    this.requeue(taken);
    return taken.length;
  }
}

export function kindOf(task: Task): TaskKind {
  return task.type === "describe" ? "load" : task.type;
}
