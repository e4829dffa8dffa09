/**
 * @module sandbox/guest/timers
 * setTimeout, setInterval and queueMicrotask for tools. A bare V8 context has
 * no timers. The timers live here, in the isolate, and nowhere else: the
 * worker holds one wake-up for the whole isolate (it lends `wake(delayMs)`,
 * called only when the earliest due time moves earlier) and enters `fire()`,
 * which runs what came due and answers when to wake next.
 *
 * So a timer costs memory in the tool's own isolate only, and clearTimeout
 * frees it at once: a debounce over 200,000 events keeps one pending timer
 * and the worker one Node timer. Pending timers are bounded; cleared ones are
 * gone. Timers live only for the call that set them (`reset`).
 */
import { intrinsics as I } from "./intrinsics.js";

/** Past this many pending timers in one call, setTimeout throws. */
export const MAX_PENDING_TIMERS = 1000;

type Timer = { callback: Function; args: unknown[]; dueAt: number; intervalMs: number | undefined };

export type TimerHost = {
  /** Ask the worker to wake the timers in `delayMs` (fire-and-forget). */
  wake(delayMs: number): void;
  /** Called when a timer callback throws: the current call fails with it. */
  onUncaught(error: unknown): void;
};

export function createTimers(host: TimerHost) {
  const pending = new I.Map<number, Timer>();
  let nextId = 1;
  /** The wake-up the worker holds (absolute, on Date.now's clock), or +Infinity. */
  let wakeAt = I.Infinity;

  function requestWake(dueAt: number): void {
    if (dueAt >= wakeAt) return;
    wakeAt = dueAt;
    host.wake(I.MathMax(0, dueAt - I.DateNow()));
  }

  function add(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
    if (typeof callback !== "function") throw new I.TypeError("The callback must be a function");
    if (I.mapSize(pending) >= MAX_PENDING_TIMERS) {
      throw new I.RangeError(`More than ${MAX_PENDING_TIMERS} timers are pending in this call`);
    }
    // HTML: the delay is a WebIDL long (ToInt32: 2^31 wraps negative, 2^32 to 0), and a negative one is 0;
    // a number in a string counts too (its conversion runs no tool code). 0 waits at least 1 ms here.
    const numeric = typeof delay === "number" ? delay : typeof delay === "string" ? +delay : 0;
    const delayMs = I.MathMax(1, numeric | 0);
    const id = nextId++;
    const dueAt = I.DateNow() + delayMs;
    I.mapSet(pending, id, { callback, args, dueAt, intervalMs: repeat ? delayMs : undefined });
    requestWake(dueAt);
    return id;
  }

  function clear(id: unknown): void {
    if (typeof id === "number") I.mapDelete(pending, id);
  }

  /** Runs every timer due now, in due order of their ids; answers ms until the next, or -1. */
  function fire(): number {
    wakeAt = I.Infinity;
    const now = I.DateNow();
    const due: number[] = [];
    I.mapForEach(pending as Map<unknown, unknown>, (timer, id) => {
      if ((timer as Timer).dueAt <= now) I.arrayPush(due, id as number);
    });
    for (let i = 0; i < due.length; i++) {
      const id = due[i] as number;
      const timer = I.mapGet(pending, id);
      if (timer === undefined) continue; // cleared by an earlier callback
      if (timer.intervalMs === undefined) I.mapDelete(pending, id);
      else timer.dueAt = now + timer.intervalMs;
      try {
        I.apply(timer.callback, undefined, timer.args);
      } catch (error) {
        host.onUncaught(error);
      }
    }
    let next = I.Infinity;
    I.mapForEach(pending as Map<unknown, unknown>, (timer) => {
      next = I.MathMin(next, (timer as Timer).dueAt);
    });
    if (next === I.Infinity) return -1;
    wakeAt = next;
    return I.MathMax(0, next - I.DateNow());
  }

  /** Forget every timer: the call that set them is over. */
  function reset(): void {
    I.mapClear(pending);
    wakeAt = I.Infinity;
  }

  /** Timers pending now (tests and the worker's accounting). */
  function pendingCount(): number {
    return I.mapSize(pending);
  }

  const globals = {
    setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => add(callback, delay, args, false),
    setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => add(callback, delay, args, true),
    // Two functions, as in browsers and Node: each keeps its own name.
    clearTimeout: (id: unknown) => clear(id),
    clearInterval: (id: unknown) => clear(id),
    queueMicrotask: (callback: unknown) => {
      if (typeof callback !== "function") throw new I.TypeError("The callback must be a function");
      I.ownThen(
        I.ownPromise<void>((resolve) => resolve()),
        () => I.apply(callback, undefined, []),
        () => undefined,
      );
    },
  };
  return { globals, fire, reset, pendingCount };
}
