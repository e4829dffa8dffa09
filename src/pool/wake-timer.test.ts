/**
 * @module src/pool/wake-timer.test
 * The session's one timer, on the real clock: it wakes at the (earliest)
 * time named or before, moves only when that time comes earlier, lets go
 * of the process while nothing is due, and stays quiet once cleared.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { WakeTimer } from "./wake-timer.js";

/** A timer and the times (ms after the test began) it woke. */
function timed() {
  const started = performance.now();
  const woke: number[] = [];
  const timer = new WakeTimer(() => woke.push(performance.now() - started));
  return { timer, woke, at: (ms: number) => started + ms };
}

describe("WakeTimer", () => {
  it("wakes once, at the time named", async () => {
    const { timer, woke, at } = timed();
    timer.set(at(30));
    await sleep(120);
    assert.equal(woke.length, 1);
    assert.ok((woke[0] ?? 0) >= 29, `woke at ${woke[0]} ms`);
  });

  it("keeps an earlier time (waking early is the owner's to notice) and moves to an earlier one", async () => {
    const { timer, woke, at } = timed();
    timer.set(at(30));
    timer.set(at(5_000));
    await sleep(150);
    assert.equal(woke.length, 1, "it woke at 30 ms, the earlier time");
    timer.set(at(60_000));
    timer.set(at(200));
    await sleep(150);
    assert.equal(woke.length, 2, "it moved to 200 ms");
  });

  it("wakes at the earliest of the times named, nothing due left out", async () => {
    const { timer, woke, at } = timed();
    timer.set(at(5_000), undefined, at(30));
    await sleep(120);
    assert.equal(woke.length, 1, "it woke at 30 ms, not at 5 s");
    timer.set(undefined, undefined);
    await sleep(50);
    assert.equal(woke.length, 1);
    timer.clear();
  });

  it("with nothing due, no longer holds the process open, and holds it again for a later time", async () => {
    const { timer, woke, at } = timed();
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
    const before = timers();
    timer.set(at(40));
    assert.equal(timers(), before + 1);
    timer.set(undefined);
    assert.equal(timers(), before, "let go");
    timer.set(at(5_000));
    assert.equal(timers(), before + 1, "held again, still armed for 40 ms");
    await sleep(100);
    assert.equal(woke.length, 1, "it woke at 40 ms: the owner finds out what is due");
  });

  it("wakes at once for a time already past, without a warning", async () => {
    const { timer, woke, at } = timed();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      timer.set(at(-50));
      await sleep(40);
    } finally {
      process.off("warning", onWarning);
    }
    assert.equal(woke.length, 1);
    assert.deepEqual(warnings, [], "no TimeoutNegativeWarning (Node 24 writes it to stderr)");
  });

  it("stays quiet once cleared", async () => {
    const { timer, woke, at } = timed();
    timer.set(at(20));
    timer.clear();
    await sleep(80);
    assert.deepEqual(woke, []);
  });
});
