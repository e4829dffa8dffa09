/**
 * @module src/pool/worker-schedule.test
 * One worker's schedule alone, on a clock of plain numbers: when the running
 * task's watchdog fires and what it says, what a reply, a cancel, a
 * take-back and the worker's end do, each read from the actions it takes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Reply } from "../../sandbox/shared/replies.js";
import type { PendingTask } from "./session-types.js";
import { HOLD_BACK_GRACE_SHARE } from "../../sandbox/shared/tuning.js";
import { WorkerSchedule } from "./worker-schedule.js";

const GRACE_MS = 50;
const LOAD_MS = 300;
const LIMITS = { timeoutMs: 100, memoryMb: 32, maxOutputBytes: 1024, maxDepth: 8 };
const REPLY: Reply = { type: "call", kind: "ok", envelopeJson: "{}", metrics: { wallMs: 1, cpuMs: 1, heapBytes: 0 }, warm: true };

/** A schedule on a clock of numbers (`at(ms)` sets it), whose actions are written to `log`; `settled` has what callers heard. */
function scheduleWithLog() {
  const log: string[] = [];
  const settled: string[] = [];
  let nowMs = 0;
  const schedule = new WorkerSchedule(
    { watchdogGraceMs: GRACE_MS, loadTimeoutMs: LOAD_MS, now: () => nowMs },
    {
      answered: (head, reply) => {
        log.push(`answered ${head.id}`);
        head.settle({ ok: true, reply });
      },
      settle: (pending, outcome) => {
        log.push(`settle ${pending.id} ${outcome.ok ? "ok" : `${outcome.kind}: ${outcome.message}`}`);
        pending.settle(outcome);
      },
      sendCancel: (id) => log.push(`sendCancel ${id}`),
      kill: (reason, message) => log.push(`kill ${reason}: ${message}`),
    },
  );
  const pending = (id: number, timeoutMs = LIMITS.timeoutMs): PendingTask => {
    const limits = { ...LIMITS, timeoutMs };
    const task = { type: "call" as const, callId: `c${id}`, bundle: { hash: "h", filename: "agent:t" }, tool: "t", inputJson: "{}", limits };
    return { id, task, limits, key: "k", settle: (outcome) => settled.push(`${id}:${outcome.ok ? "ok" : outcome.kind}`) };
  };
  const at = (ms: number) => {
    nowMs = ms;
    return schedule;
  };
  return { schedule, at, log, settled, pending };
}

describe("WorkerSchedule: the running task's watchdog", () => {
  it("fires at the run limit + grace from when the task became the head, not before, once", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    assert.equal(schedule.wakeAt, undefined, "no task, no clock");
    at(1000).dispatch(pending(1));
    assert.equal(schedule.wakeAt, 1000 + 100 + GRACE_MS);
    at(1149).tick();
    assert.deepEqual(log, [], "a timer that fires early kills nothing");
    assert.equal(schedule.wakeAt, 1150);
    at(1150).tick();
    assert.deepEqual(log, ["kill watchdog: the tool ran past its 100 ms limit and its worker did not stop it; the worker was killed"]);
    assert.equal(schedule.stopped?.reason, "watchdog");
    assert.equal(schedule.wakeAt, undefined, "a stopped worker has no clock");
    at(5000).tick();
    assert.equal(log.length, 1, "killed once");
  });

  it("times a task that loads its module by loadTimeoutMs, then re-arms from the run phase with its own limit", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    at(0).dispatch(pending(1));
    at(10).phase(1, "load");
    assert.equal(schedule.wakeAt, 10 + LOAD_MS + GRACE_MS);
    at(20).phase(9, "run");
    assert.equal(schedule.wakeAt, 10 + LOAD_MS + GRACE_MS, "a phase of a task that is not the head changes nothing");
    at(200).phase(1, "run");
    assert.equal(schedule.wakeAt, 200 + 100 + GRACE_MS);
    at(349).tick();
    assert.deepEqual(log, []);
    at(350).tick();
    assert.deepEqual(log, ["kill watchdog: the tool ran past its 100 ms limit and its worker did not stop it; the worker was killed"]);
  });

  it("says the module's top level ran past the load limit when the load phase overruns", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    at(0).dispatch(pending(1));
    at(0).phase(1, "load");
    at(LOAD_MS + GRACE_MS).tick();
    assert.deepEqual(log, [`kill watchdog: loading the module (its top level) ran past the ${LOAD_MS} ms limit and its worker did not stop it; the worker was killed`]);
  });

  it("stops while a gate waits and resumes with what was left", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    at(0).dispatch(pending(1));
    assert.equal(at(40).pause(), 110, "150 - 40 left");
    assert.equal(schedule.wakeAt, undefined, "no clock while paused");
    at(10_000).tick();
    assert.deepEqual(log, [], "the gate's wait is not the tool's time");
    at(10_000).resume(110);
    assert.equal(schedule.wakeAt, 10_110);
    at(10_109).tick();
    assert.deepEqual(log, []);
    at(10_110).tick();
    assert.equal(log.length, 1);
  });

  it("pauses nothing without a head, and a resume after the head was answered starts no clock", () => {
    const { schedule, at, pending } = scheduleWithLog();
    assert.equal(at(0).pause(), undefined);
    at(0).dispatch(pending(1));
    const left = at(10).pause();
    assert.equal(left, 140);
    at(20).replies([{ id: 1, reply: REPLY }]);
    at(30).resume(left ?? 0);
    assert.equal(schedule.wakeAt, undefined);
  });
});

describe("WorkerSchedule: replies", () => {
  it("settles the head and starts the next head's deadline from the reply's time, with its own limit", () => {
    const { schedule, at, log, settled, pending } = scheduleWithLog();
    at(0).dispatch(pending(1));
    at(5).dispatch(pending(2, 500));
    assert.equal(schedule.wakeAt, 150, "the second task's clock does not run before it does");
    assert.equal(at(120).replies([{ id: 1, reply: REPLY }]), true);
    assert.deepEqual(log, ["answered 1"]);
    assert.deepEqual(settled, ["1:ok"]);
    assert.equal(schedule.head?.id, 2);
    assert.equal(schedule.wakeAt, 120 + 500 + GRACE_MS);
    at(200).replies([{ id: 2, reply: REPLY }]);
    assert.equal(schedule.wakeAt, undefined, "nothing runs");
    assert.equal(schedule.length, 0);
  });

  it("settles the replies of one message in turn, and times the head left from the message", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    for (const id of [1, 2, 3]) at(0).dispatch(pending(id));
    assert.equal(at(70).replies([{ id: 1, reply: REPLY }, { id: 2, reply: REPLY }]), true);
    assert.deepEqual(log, ["answered 1", "answered 2"]);
    assert.equal(schedule.head?.id, 3);
    assert.equal(schedule.wakeAt, 70 + 100 + GRACE_MS);
  });

  it("kills the worker for a reply out of order: the replies before it stand, and nothing more is timed", () => {
    const { schedule, at, log, settled, pending } = scheduleWithLog();
    for (const id of [1, 2, 3]) at(0).dispatch(pending(id));
    assert.equal(at(10).replies([{ id: 1, reply: REPLY }, { id: 3, reply: REPLY }]), false);
    assert.deepEqual(log, ["answered 1", "kill protocol: the sandbox worker answered out of order"]);
    assert.deepEqual(settled, ["1:ok"]);
    assert.equal(schedule.length, 2);
    assert.equal(schedule.wakeAt, undefined);
  });

  it("asks for one flush a turn and sends the hold-back budget with each task", () => {
    const { schedule, at, pending } = scheduleWithLog();
    assert.equal(at(0).dispatch(pending(1)), true);
    assert.equal(at(0).dispatch(pending(2)), false);
    const sent = schedule.takeOutbox();
    assert.deepEqual(sent.map((entry) => [entry.id, entry.replyWithinMs]), [[1, 100 + GRACE_MS * HOLD_BACK_GRACE_SHARE], [2, 100 + GRACE_MS * HOLD_BACK_GRACE_SHARE]]);
    assert.equal(at(0).dispatch(pending(3)), true);
  });
});

describe("WorkerSchedule: cancels, take-backs, stops, the end", () => {
  it("kills the worker for a cancel of the running task", () => {
    const { schedule, at, log, settled, pending } = scheduleWithLog();
    const a = pending(1);
    at(0).dispatch(a);
    schedule.takeOutbox();
    at(10).cancel(a);
    assert.deepEqual(log, ["kill cancel: the call was cancelled by its caller; its worker was stopped"]);
    assert.deepEqual(settled, [], "it settles as its worker dies");
  });

  it("answers a waiting task cancelled at once, tells the worker to skip it, and ignores its reply", () => {
    const { schedule, at, log, settled, pending } = scheduleWithLog();
    const [a, b] = [pending(1), pending(2)];
    at(0).dispatch(a);
    at(0).dispatch(b);
    schedule.takeOutbox();
    at(10).cancel(b);
    assert.deepEqual(log, ["settle 2 cancelled: the call was cancelled by its caller", "sendCancel 2"]);
    assert.equal(schedule.wakeAt, 150, "the head's clock runs on");
    at(20).replies([{ id: 1, reply: REPLY }]);
    at(21).replies([{ id: 2, reply: REPLY }]);
    assert.deepEqual(settled, ["2:cancelled", "1:ok"], "the skipped task's reply settles nothing more");
  });

  it("drops an unsent head cancelled, and the next task's clock starts from the cancel", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    const [a, b] = [pending(1), pending(2, 400)];
    at(0).dispatch(a);
    at(0).dispatch(b);
    at(30).cancel(a);
    assert.deepEqual(log, ["settle 1 cancelled: the call was cancelled by its caller"], "the worker never hears of it");
    assert.equal(schedule.head, b);
    assert.equal(schedule.wakeAt, 30 + 400 + GRACE_MS);
    assert.deepEqual(schedule.takeOutbox().map((entry) => entry.id), [2]);
    at(40).cancel(b);
    assert.equal(schedule.wakeAt, undefined, "the last one gone: no clock");
  });

  it("takes back all but the head: unsent ones leave, sent ones stay as ghosts the worker skips, and ghosts are no orphans", () => {
    const { schedule, at, log, settled, pending } = scheduleWithLog();
    const [a, b, c, d] = [pending(1), pending(2), pending(3), pending(4)];
    at(0).dispatch(a);
    at(0).dispatch(b);
    at(0).dispatch(c);
    schedule.takeOutbox();
    at(0).dispatch(d);
    assert.deepEqual(schedule.takeBack().map((task) => task.id), [2, 3, 4]);
    assert.deepEqual(log, ["sendCancel 2", "sendCancel 3"]);
    assert.equal(schedule.length, 3, "the head and the ghosts of b and c");
    assert.deepEqual(schedule.takeOutbox(), [], "d never leaves");
    assert.deepEqual(schedule.takeBack(), [], "a ghost is not taken twice");
    at(10).replies([{ id: 1, reply: REPLY }]);
    const ghost = schedule.head;
    assert.equal(ghost?.ghost, true);
    assert.equal(ghost?.id, 2);
    assert.equal(schedule.wakeAt, 10 + 100 + GRACE_MS, "a ghost that becomes the head is timed as any task");
    ghost?.settle({ ok: false, kind: "crash", message: "its worker died" });
    schedule.exit();
    assert.deepEqual(schedule.drain(), { head: ghost, orphans: [] }, "c's ghost is no orphan: c runs elsewhere");
    assert.deepEqual(settled, ["1:ok"], "b runs elsewhere: its ghost settles nobody");
  });

  it("counts only the first stop, and takes nothing back from a stopped worker", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    at(0).dispatch(pending(1));
    at(0).dispatch(pending(2));
    schedule.takeOutbox();
    schedule.stop("memory_watch", "over");
    schedule.stop("watchdog", "late");
    assert.deepEqual(log, ["kill memory_watch: over"]);
    assert.deepEqual(schedule.stopped, { reason: "memory_watch", message: "over" });
    assert.deepEqual(schedule.takeBack(), []);
  });

  it("decides nothing once the worker has ended, keeps its head until drained, then drains the head and the orphans", () => {
    const { schedule, at, log, pending } = scheduleWithLog();
    const [a, b, c] = [pending(1), pending(2), pending(3)];
    at(0).dispatch(a);
    at(0).dispatch(b);
    schedule.takeOutbox();
    at(0).dispatch(c);
    schedule.exit();
    assert.equal(schedule.wakeAt, undefined);
    assert.equal(at(10).pause(), undefined);
    schedule.stop("cancel", "the host was closed");
    at(10_000).tick();
    assert.deepEqual(schedule.takeBack(), []);
    assert.deepEqual(log, []);
    assert.equal(schedule.head, a, "the head is known until drained (its lane's journal is read last)");
    const { head, orphans } = schedule.drain();
    assert.equal(head, a);
    assert.deepEqual(orphans, [b, c]);
    assert.equal(schedule.length, 0);
    assert.deepEqual(schedule.drain(), { head: undefined, orphans: [] });
  });
});
