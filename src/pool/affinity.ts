/**
 * @module src/pool/affinity
 * Where each warm isolate lives, and which worker a queued task goes to.
 *
 * Every isolate key (bundle, memory limit, tool) has at most one *home*: a
 * worker that holds it warm. A worker's isolate cache is small next to the
 * number of tools, so sending each key to one worker lets every cache hold
 * its share instead of every worker warming every tool (and evicting them
 * again: thrash).
 *
 * ```
 * task(key) ─▶ home idle ────────────────────────────────▶ home
 *            ├ home has room, is not stalled, and not (key hot
 *            │   and another worker idle) ─────────────────▶ home (sent ahead)
 *            ├ another worker has it warm and room ────────▶ that one
 *            ├ key hot, another worker idle ───────────────▶ spill there
 *            ├ home stalled: any worker with room, not stalled ▶ spill there
 *            └ otherwise ─────────────────────────────────▶ wait (stays queued)
 * no home ─▶ a worker with room: not stalled, warm, fewest homes, least load,
 *            then the one that least recently became a home
 * ```
 *
 * The last rule breaks ties between workers with as many homes: always the
 * first would make one worker take every new key while another holds a
 * home nobody calls any more, evicting its own keys in turn, forever (a home
 * counts until its key is evicted). Turns keep the moves to one or two.
 *
 * A key is *hot* when, with this task, two or more of its tasks are queued
 * or sent to its home and unanswered: two calls of one tool at once should
 * run at once. A worker is *stalled* when its running task has run `stallMs` or more
 * (measured from its last reply): tasks sent ahead to it would wait behind a
 * slow call, so none are, and the keys it is home to may go elsewhere.
 *
 * What is warm where is learnt from the pool's own traffic: a call makes its
 * key warm in the worker it went to, a load may keep one (`kept`), and every
 * reply names the keys the worker's cache dropped since its last reply
 * (`evicted`). A home that drops its key stops being its home. All of it is
 * a hint: a wrong guess costs one cold isolate, never a wrong answer.
 *
 * The router owns only this bookkeeping; the pool owns the sessions and
 * calls `forget` when one ends.
 *
 * Depth: a worker takes `pipelineDepth` tasks ahead, or up to
 * `quickPipelineDepth` while every task it holds, and the new one, is a call of
 * a key whose last QUICK_STREAK calls each took at most QUICK_CALL_MS (one
 * slow call starts the count again, so a tool that is only sometimes quick
 * rarely has many calls queued behind one of its slow ones). Deep pipelines of quick
 * calls are what lets messages carry many tasks (see session.ts); a task
 * that may be slow never has more than `pipelineDepth - 1` tasks behind it.
 */
import type { Reply } from "../../sandbox/shared/replies.js";
import { QUICK_CALL_MS, QUICK_STREAK } from "../../sandbox/shared/tuning.js";

/**
 * What a task does with its key: a call runs in the key's isolate, a warm-up
 * builds that isolate and runs nothing, a load's key names no isolate.
 */
export type TaskKind = "call" | "warm" | "load";

/** What the router needs of a session. */
export type RouteTarget = { readonly ready: boolean; readonly load: number };

export type RouterOptions = {
  /** Tasks sent ahead to one worker. */
  pipelineDepth: number;
  /** Tasks sent ahead to one worker while all of them are known-quick calls. @default pipelineDepth */
  quickPipelineDepth?: number;
  /** A worker whose running task has run this long takes no tasks ahead. */
  stallMs: number;
  /** The clock, in ms (tests pass their own). */
  now?: () => number;
};

export class AffinityRouter<S extends RouteTarget> {
  readonly #options: RouterOptions;
  readonly #now: () => number;
  readonly #homes = new Map<string, S>();
  readonly #homeCount = new Map<S, number>();
  readonly #warm = new Map<S, Set<string>>();
  /** Tasks of each key sent to each session and not yet settled. */
  readonly #sent = new Map<S, Map<string, number>>();
  /** When each busy session last made progress (a reply, or a task sent while it was idle). */
  readonly #progressAt = new Map<S, number>();
  /** Quick calls in a row, per key. */
  readonly #quickStreak = new Map<string, number>();
  /** Tasks sent to each session and not settled that may be slow (loads, calls of keys not known quick). */
  readonly #mayBeSlow = new Map<S, number>();
  /** When each session last became a key's home, as a count of homes made. */
  readonly #homedAt = new Map<S, number>();
  #homesMade = 0;

  constructor(options: RouterOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  home(key: string): S | undefined {
    return this.#homes.get(key);
  }

  homeCount(session: S): number {
    return this.#homeCount.get(session) ?? 0;
  }

  isWarm(session: S, key: string): boolean {
    return this.#warm.get(session)?.has(key) ?? false;
  }

  /**
   * The session for a task of `key` now, or undefined: it waits. `isolate`
   * is false for a load, whose key names no isolate: it only needs a worker.
   * `waiting` counts the queued tasks of `key`, this one included.
   */
  pick(sessions: Iterable<S>, key: string, options: { isolate?: boolean; waiting?: number } = {}): S | undefined {
    const all = [...sessions].filter((session) => session.ready);
    const home = options.isolate === false ? undefined : this.#homes.get(key);
    const quick = options.isolate !== false && this.#isQuick(key);
    const hasRoom = (session: S) => this.#hasRoom(session, quick);
    if (home === undefined || !home.ready) return this.#pickNew(all, key, hasRoom);
    if (home.load === 0) return home;
    const others = all.filter((session) => session !== home);
    // A cold spill costs an isolate and, in a full cache, evicts another
    // tool's: only for a key with another call queued or at its home (a
    // hot key, or two calls of one tool at once), never for the passing
    // imbalance of many keys.
    const hot = (options.waiting ?? 1) + this.#running(home, key) >= 2;
    const idle = hot ? others.filter((session) => session.load === 0) : [];
    const homeStalled = this.stalled(home);
    if (hasRoom(home) && !homeStalled && idle.length === 0) return home;
    const warm = leastLoaded(others.filter((session) => this.isWarm(session, key) && hasRoom(session) && !this.stalled(session)));
    if (warm !== undefined) return warm;
    if (idle.length > 0) return leastLoaded(idle);
    if (homeStalled) return leastLoaded(others.filter((session) => hasRoom(session) && !this.stalled(session)));
    return undefined;
  }

  /** No home: a worker with room, not stalled, warm for the key, fewest homes, least loaded, least recently a new home. */
  #pickNew(all: S[], key: string, hasRoom: (session: S) => boolean): S | undefined {
    let best: S | undefined;
    let bestRank: number[] = [];
    for (const session of all) {
      if (!hasRoom(session)) continue;
      const rank = [
        this.stalled(session) ? 1 : 0,
        this.isWarm(session, key) ? 0 : 1,
        this.homeCount(session),
        session.load,
        this.#homedAt.get(session) ?? 0,
      ];
      if (best === undefined || lexLess(rank, bestRank)) {
        best = session;
        bestRank = rank;
      }
    }
    return best;
  }

  /**
   * Call before `session.dispatch`. A call's or a warm-up's key becomes warm
   * there, and its home if it had none (so a call that follows its warm-up
   * goes after it). Answers whether the task may be slow: pass that to
   * `settled`.
   */
  dispatched(session: S, key: string, kind: TaskKind = "call"): boolean {
    if (session.load === 0) this.#progressAt.set(session, this.#now());
    const mayBeSlow = kind !== "call" || !this.#isQuick(key);
    if (mayBeSlow) this.#mayBeSlow.set(session, (this.#mayBeSlow.get(session) ?? 0) + 1);
    if (kind === "load") return mayBeSlow;
    this.#warmed(session, key);
    // Only calls count towards a hot key: a call behind its own warm-up is
    // not two calls at once, and must not spill to a cold worker.
    if (kind === "warm") return mayBeSlow;
    let sent = this.#sent.get(session);
    if (sent === undefined) this.#sent.set(session, (sent = new Map()));
    sent.set(key, (sent.get(key) ?? 0) + 1);
    return mayBeSlow;
  }

  /** A task sent to `session` settled, whatever its outcome; `mayBeSlow` as `dispatched` answered. */
  settled(session: S, key: string, kind: TaskKind, mayBeSlow: boolean): void {
    if (mayBeSlow) this.#mayBeSlow.set(session, (this.#mayBeSlow.get(session) ?? 1) - 1);
    if (kind !== "call") return;
    const sent = this.#sent.get(session);
    const count = sent?.get(key) ?? 0;
    if (count <= 1) sent?.delete(key);
    else sent?.set(key, count - 1);
  }

  #isQuick(key: string): boolean {
    return (this.#quickStreak.get(key) ?? 0) >= QUICK_STREAK;
  }

  #running(session: S, key: string): number {
    return this.#sent.get(session)?.get(key) ?? 0;
  }

  /** The session answered a task (any task): it is making progress. */
  progressed(session: S): void {
    this.#progressAt.set(session, this.#now());
  }

  /** What a reply says about the worker's cache: keys dropped, the call's key kept, a load's kept key. */
  replied(session: S, key: string, reply: Reply): void {
    const evicted = reply.evicted ?? [];
    for (const gone of evicted) {
      this.#warm.get(session)?.delete(gone);
      if (this.#homes.get(gone) === session) this.#unhome(gone, session);
      // Bounded with many scopes: a key no worker keeps warm forgets its streak.
      this.#quickStreak.delete(gone);
    }
    // A call keeps its isolate unless the worker says it dropped it (an
    // earlier reply may have named it evicted while this call waited).
    if (reply.type === "call" && reply.envelopeJson !== undefined && !evicted.includes(key)) this.#warmed(session, key);
    if (reply.type === "call") {
      if (reply.kind === "ok" && reply.metrics.wallMs <= QUICK_CALL_MS) this.#quickStreak.set(key, (this.#quickStreak.get(key) ?? 0) + 1);
      else this.#quickStreak.delete(key);
    }
    if (reply.type === "describe" && reply.kept !== undefined) this.#warmed(session, reply.kept);
    // A warm-up that built nothing: the key is not warm there after all.
    if (reply.type === "warm" && reply.kept === undefined) {
      this.#warm.get(session)?.delete(key);
      if (this.#homes.get(key) === session) this.#unhome(key, session);
    }
  }

  /** The session ended: nothing is warm there any more, and it is home to nothing. */
  forget(session: S): void {
    for (const [key, home] of this.#homes) if (home === session) this.#homes.delete(key);
    this.#homeCount.delete(session);
    this.#warm.delete(session);
    this.#progressAt.delete(session);
    this.#sent.delete(session);
    this.#mayBeSlow.delete(session);
    this.#homedAt.delete(session);
  }

  #warmed(session: S, key: string): void {
    let warm = this.#warm.get(session);
    if (warm === undefined) this.#warm.set(session, (warm = new Set()));
    warm.add(key);
    if (!this.#homes.has(key)) {
      this.#homes.set(key, session);
      this.#homeCount.set(session, this.homeCount(session) + 1);
      this.#homedAt.set(session, ++this.#homesMade);
    }
  }

  #unhome(key: string, session: S): void {
    this.#homes.delete(key);
    this.#homeCount.set(session, this.homeCount(session) - 1);
  }

  /** Room for one more task; `quick`: the task is a call of a key known quick. */
  #hasRoom(session: S, quick: boolean): boolean {
    if (!session.ready) return false;
    if (session.load < this.#options.pipelineDepth) return true;
    const deep = this.#options.quickPipelineDepth ?? this.#options.pipelineDepth;
    return quick && session.load < deep && (this.#mayBeSlow.get(session) ?? 0) === 0;
  }

  /** Its running task has run `stallMs` or more since the worker last answered anything. */
  stalled(session: S): boolean {
    if (session.load === 0) return false;
    const since = this.#progressAt.get(session);
    return since !== undefined && this.#now() - since >= this.#options.stallMs;
  }
}

function leastLoaded<S extends RouteTarget>(sessions: S[]): S | undefined {
  let best: S | undefined;
  for (const session of sessions) if (best === undefined || session.load < best.load) best = session;
  return best;
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if ((a[i] as number) !== (b[i] as number)) return (a[i] as number) < (b[i] as number);
  }
  return false;
}
