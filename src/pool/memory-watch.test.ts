/**
 * @module src/pool/memory-watch.test
 * Who a memory stop is charged to, from readings alone; then the watch on
 * this very process, reading /proc for real.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { allowanceBytes, chargeOf, MemoryWatch, type Charge, type Reading } from "./memory-watch.js";

const MB = 1024 * 1024;
const TASK = allowanceBytes(32, 96); // 160 MB
const NESTED = allowanceBytes(16, 96); // 128 MB

const TABLE: [string, Reading, Charge | undefined][] = [
  ["a task under its allowance", { residentBytes: 500 * MB, baselineBytes: 400 * MB, runningAllowanceBytes: TASK }, undefined],
  ["a task past its allowance", { residentBytes: 561 * MB, baselineBytes: 400 * MB, runningAllowanceBytes: TASK }, "running"],
  ["what earlier tasks left is in the baseline, not the task's", { residentBytes: 900 * MB, baselineBytes: 800 * MB, runningAllowanceBytes: TASK }, undefined],
  ["a nested call past its own allowance", { residentBytes: 700 * MB, baselineBytes: 400 * MB, runningAllowanceBytes: TASK, nested: { startBytes: 450 * MB, allowanceBytes: NESTED } }, "nested"],
  ["the script grew past its own before the nested call started", { residentBytes: 580 * MB, baselineBytes: 400 * MB, runningAllowanceBytes: TASK, nested: { startBytes: 570 * MB, allowanceBytes: NESTED } }, "running"],
  ["both under their own, together over one allowance: nobody is stopped", { residentBytes: 650 * MB, baselineBytes: 400 * MB, runningAllowanceBytes: TASK, nested: { startBytes: 540 * MB, allowanceBytes: NESTED } }, undefined],
  ["a nested call is not charged for the script's growth before it", { residentBytes: 600 * MB, baselineBytes: 400 * MB, runningAllowanceBytes: TASK, nested: { startBytes: 590 * MB, allowanceBytes: NESTED } }, "running"],
];

describe("chargeOf", () => {
  for (const [name, reading, charge] of TABLE) {
    it(name, () => assert.equal(chargeOf(reading), charge));
  }
});

describe("MemoryWatch on this process", { timeout: 30_000, skip: process.platform !== "linux" && "reads /proc" }, () => {
  // Kept to the end: freed memory would be reused by the next allocation without growing the process.
  const held: Buffer[] = [];
  const grow = (mb: number) => held.push(Buffer.alloc(mb * MB, 1));
  // The watch samples when the session's timer ticks it at or past its wakeAt: a clock of numbers here.
  let clock = 0;
  const over = () => {
    let seen: Charge | undefined;
    const watch = new MemoryWatch({ pid: process.pid, slackMb: 0, now: () => clock, onOver: (charge) => (seen = charge) });
    return { watch, seen: () => seen };
  };
  const sampled = (watch: MemoryWatch) => {
    const due = watch.wakeAt;
    assert.ok(due !== undefined, "a watched task has a sample due");
    clock = due;
    watch.tick();
  };

  it("charges the running task for what it grew past its allowance", () => {
    const { watch, seen } = over();
    watch.start(8); // 16 MB
    grow(48);
    clock = (watch.wakeAt ?? Number.NaN) - 1;
    watch.tick();
    assert.equal(seen(), undefined, "nothing is sampled before the sample is due");
    sampled(watch);
    assert.equal(seen(), "running");
    assert.equal(watch.wakeAt, undefined, "a watch that stopped the worker has nothing due");
    watch.close();
  });

  it("charges a nested call for what grew while it ran, and moves what it kept into the script's baseline", () => {
    const nestedGrew = over();
    nestedGrew.watch.start(32); // 64 MB for the script
    nestedGrew.watch.nested(8); // 16 MB for the nested call
    grow(48);
    sampled(nestedGrew.watch);
    nestedGrew.watch.close();
    assert.equal(nestedGrew.seen(), "nested");

    const kept = over();
    kept.watch.start(8); // 16 MB for the script
    kept.watch.nested(32); // 64 MB for the nested call
    grow(48); // under the nested call's allowance, past the script's
    kept.watch.nested(undefined);
    sampled(kept.watch);
    kept.watch.close();
    assert.equal(kept.seen(), undefined, "what the nested call kept is not the script's growth");
  });

  it("reuses a reading only across quick calls: after a slow call or any other task it reads again", () => {
    const reused = over();
    reused.watch.start(8);
    reused.watch.ended(0.5);
    grow(48); // grown by "the quick call": a reading reused misses it (bounded by the calls' wall time)
    reused.watch.start(8);
    sampled(reused.watch);
    reused.watch.close();
    assert.equal(reused.seen(), "running", "the reading was reused after a quick call");

    for (const wallMs of [undefined, 50]) {
      const fresh = over();
      fresh.watch.start(8);
      fresh.watch.ended(wallMs);
      grow(48);
      fresh.watch.start(8);
      sampled(fresh.watch);
      fresh.watch.close();
        assert.equal(fresh.seen(), undefined, `read again after ${wallMs === undefined ? "a task that is not a call" : "a slow call"}`);
    }
  });
});
