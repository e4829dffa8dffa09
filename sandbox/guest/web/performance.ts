/**
 * @module sandbox/guest/web/performance
 * `performance.now()` and `performance.timeOrigin`, coarsened to the
 * isolate's own clock (`Date.now()`, whole milliseconds) and never running
 * backwards: a tool gets no finer timer than it already has, so nothing here
 * helps a timing side channel.
 */
export function createPerformance() {
  const timeOrigin = Date.now();
  let last = 0;
  return {
    timeOrigin,
    now(): number {
      const elapsed = Date.now() - timeOrigin;
      if (elapsed > last) last = elapsed;
      return last;
    },
    toJSON() {
      return { timeOrigin };
    },
  };
}
