/**
 * @module sandbox/guest/timers
 * setTimeout, setInterval and queueMicrotask for tools. A bare V8 context has
 * no timers; the worker lends one fire-and-forget callback, `schedule(id, ms)`,
 * and later enters the isolate through `fire(id)`. Timers live only for the
 * call that set them: the worker forgets every pending timer when a call
 * ends, so nothing a tool scheduled runs outside a call's limits.
 */
import { intrinsics as I } from "./intrinsics.js";

/** Past this many pending timers in one call, setTimeout throws. */
export const MAX_PENDING_TIMERS = 1000;

type Timer = { callback: Function; args: unknown[]; intervalMs: number | undefined };

export type TimerHost = {
  /** Called when a timer callback throws: the current call fails with it. */
  onUncaught(error: unknown): void;
};

export function createTimers(schedule: (id: number, delayMs: number) => void, host: TimerHost) {
  const pending = new I.Map<number, Timer>();
  let nextId = 1;

  function add(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
    if (typeof callback !== "function") throw new I.TypeError("The callback must be a function");
    if (I.mapSize(pending) >= MAX_PENDING_TIMERS) {
      throw new I.RangeError(`More than ${MAX_PENDING_TIMERS} timers are pending in this call`);
    }
    const delayMs = typeof delay === "number" && delay >= 1 ? delay : 1;
    const id = nextId++;
    I.mapSet(pending, id, { callback, args, intervalMs: repeat ? delayMs : undefined });
    schedule(id, delayMs);
    return id;
  }

  function clear(id: unknown): void {
    if (typeof id === "number") I.mapDelete(pending, id);
  }

  function fireOne(id: number): void {
    const timer = I.mapGet(pending, id);
    if (timer === undefined) return;
    if (timer.intervalMs === undefined) I.mapDelete(pending, id);
    else schedule(id, timer.intervalMs);
    try {
      I.apply(timer.callback, undefined, timer.args);
    } catch (error) {
      host.onUncaught(error);
    }
  }

  /** The worker fires every timer that came due since its last entry at once. */
  function fire(ids: number[]): void {
    for (let i = 0; i < ids.length; i++) fireOne(ids[i] as number);
  }

  /** Forget every timer: the call that set them is over. */
  function reset(): void {
    I.mapClear(pending);
  }

  const globals = {
    setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => add(callback, delay, args, false),
    setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => add(callback, delay, args, true),
    clearTimeout: clear,
    clearInterval: clear,
    queueMicrotask: (callback: unknown) => {
      if (typeof callback !== "function") throw new I.TypeError("The callback must be a function");
      I.promiseThen(
        I.Promise.resolve(),
        () => I.apply(callback, undefined, []),
        () => undefined,
      );
    },
  };
  return { globals, fire, reset };
}
