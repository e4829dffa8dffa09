/**
 * @module src/pool/nested-calls.test
 * A script's nested calls alone, on a clock of plain numbers: the running
 * one's deadline (load limit + its limit + grace from when it started, a
 * host-routed one as it became the oldest, a lane one at its "lane" line),
 * what a reply and a lane call's end do to it, when `tick` kills and what
 * it says, whom `end` blames, and what the memory watch is told.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CallReply } from "../../sandbox/shared/replies.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";
import { NestedCalls, type NestedOutcome } from "./nested-calls.js";

const GRACE_MS = 50;
const LOAD_MS = 300;
const bundle = { hash: "a".repeat(64), filename: "agent:test" };
const REPLY: CallReply = { type: "call", kind: "ok", envelopeJson: "{}", metrics: { wallMs: 1, cpuMs: 1, heapBytes: 0 }, warm: true };

function task(tool: string, timeoutMs: number): CallTask {
  return { type: "call", callId: `call-${tool}`, bundle, tool, inputJson: "{}", limits: { timeoutMs, memoryMb: 32, maxOutputBytes: 1024, maxDepth: 8 } };
}

function lane(id: string, name: string, timeoutMs: number) {
  return { id, tool: 0, name, limits: { timeoutMs, memoryMb: 16 } };
}

/** Nested calls on a clock of numbers (`at(ms)` sets it); what they sent, killed and told the memory watch, and how each call settled. */
function nestedWithLog() {
  const sent: string[] = [];
  const kills: string[] = [];
  const running: (number | undefined)[] = [];
  const settled: Record<string, NestedOutcome> = {};
  let nowMs = 0;
  const nested = new NestedCalls({
    loadTimeoutMs: LOAD_MS,
    watchdogGraceMs: GRACE_MS,
    now: () => nowMs,
    send: (id, sentTask) => sent.push(`${id} ${sentTask.tool}`),
    kill: (message) => kills.push(message),
    running: (limits) => running.push(limits?.memoryMb),
  });
  const run = (tool: string, timeoutMs: number) => void nested.run(task(tool, timeoutMs)).then((outcome) => (settled[tool] = outcome));
  return { nested, sent, kills, running, settled, run, at: (ms: number) => (nowMs = ms) };
}

/** Lets the settled promises' callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("NestedCalls", () => {
  it("keeps a running lane call's start when a host-routed reply is read after its \"lane\" line", () => {
    const { nested, at, run } = nestedWithLog();
    at(0);
    run("routed", 100);
    // The worker answered the routed call, then started a lane call; the host read the journal first.
    at(10);
    assert.equal(nested.laneStarted(lane("s/0", "fast", 200)), true);
    at(60);
    assert.ok(nested.replied(0, REPLY) !== undefined);
    assert.equal(nested.wakeAt, 10 + LOAD_MS + 200 + GRACE_MS, "timed from its lane line, not from the reply");
    at(70);
    assert.equal(nested.laneEnded("s/0"), true);
    assert.equal(nested.wakeAt, undefined, "nothing runs");
  });

  it("times a host-routed call from when it became the oldest: load limit + its limit + grace", () => {
    const { nested, sent, at, run } = nestedWithLog();
    assert.equal(nested.wakeAt, undefined, "nothing runs");
    at(10);
    run("first", 100);
    at(20);
    run("second", 200);
    assert.deepEqual(sent, ["0 first", "1 second"]);
    assert.equal(nested.wakeAt, 10 + LOAD_MS + 100 + GRACE_MS, "the first is timed; the second waits behind it");
    at(500);
    assert.deepEqual(nested.replied(0, REPLY), task("first", 100));
    assert.equal(nested.wakeAt, 500 + LOAD_MS + 200 + GRACE_MS, "the second from the first's answer");
    at(600);
    nested.replied(1, REPLY);
    assert.equal(nested.wakeAt, undefined, "none runs");
  });

  it("does not take a reply that is not the oldest's", () => {
    const { nested, run } = nestedWithLog();
    run("first", 100);
    run("second", 100);
    assert.equal(nested.replied(1, REPLY), undefined);
    assert.equal(nested.running?.tool, "first");
  });

  it("times a lane call from its line, and its end moves the deadline to the host-routed one waiting, or clears it", () => {
    const { nested, at, run } = nestedWithLog();
    at(5);
    assert.ok(nested.laneStarted(lane("s/0", "fast_tool", 40)));
    assert.equal(nested.wakeAt, 5 + LOAD_MS + 40 + GRACE_MS);
    assert.equal(nested.laneStarted(lane("s/1", "other", 40)), false, "one runs already");
    at(30);
    run("routed", 70);
    assert.equal(nested.wakeAt, 5 + LOAD_MS + 40 + GRACE_MS, "the host-routed call waits behind the lane call");
    assert.equal(nested.laneEnded("s/9"), false, "not the one running");
    at(90);
    assert.ok(nested.laneEnded("s/0"));
    assert.equal(nested.wakeAt, 90 + LOAD_MS + 70 + GRACE_MS, "the host-routed one from the lane call's end");
    nested.replied(0, REPLY);
    at(100);
    nested.laneStarted(lane("s/2", "fast_tool", 40));
    nested.laneEnded("s/2");
    assert.equal(nested.wakeAt, undefined);
  });

  it("ticks before the deadline change nothing; at it the worker is killed once, named after the tool", () => {
    const { nested, kills, at, run } = nestedWithLog();
    run("slow_tool", 100);
    const deadline = LOAD_MS + 100 + GRACE_MS;
    at(deadline - 1);
    nested.tick();
    assert.deepEqual(kills, []);
    assert.equal(nested.stoppedTheWorker, false);
    at(deadline);
    nested.tick();
    assert.deepEqual(kills, ['the tool "slow_tool" (called from a Code Mode script) ran past its 100 ms limit and its worker did not stop it; the worker was killed']);
    assert.equal(nested.stoppedTheWorker, true);
    assert.equal(nested.wakeAt, undefined, "nothing more is due");
    at(deadline + 1_000);
    nested.tick();
    assert.equal(kills.length, 1, "killed once");
  });

  it("kills a lane call past its deadline in its tool's name", () => {
    const { nested, kills, at } = nestedWithLog();
    at(1_000);
    nested.laneStarted(lane("s/0", "fast_tool", 40));
    at(1_000 + LOAD_MS + 40 + GRACE_MS + 7);
    nested.tick();
    assert.match(kills[0] ?? "", /^the tool "fast_tool" \(called from a Code Mode script\) ran past its 40 ms limit/);
  });

  it("is past its limit once the running call has run longer than its own limit, on the same clock", () => {
    const { nested, at, run } = nestedWithLog();
    assert.equal(nested.runningPastLimit, false, "none runs");
    at(10);
    run("tool", 100);
    at(110);
    assert.equal(nested.runningPastLimit, false);
    at(111);
    assert.equal(nested.runningPastLimit, true);
  });

  it("at its end blames the running call only when asked, and cancels the rest", async () => {
    const death = { ok: false as const, kind: "timeout" as const, message: "the worker was killed" };
    const blaming = nestedWithLog();
    blaming.run("first", 100);
    blaming.run("second", 100);
    assert.deepEqual(blaming.nested.end(death, true), { tool: "first", death });
    assert.equal(blaming.nested.wakeAt, undefined, "an ended worker has nothing due");
    const sparing = nestedWithLog();
    sparing.run("first", 100);
    assert.equal(sparing.nested.end(death, false), undefined);
    await settle();
    assert.deepEqual(blaming.settled.first, death);
    assert.equal(blaming.settled.second?.ok === false && blaming.settled.second.kind, "cancelled");
    assert.equal(sparing.settled.first?.ok === false && sparing.settled.first.kind, "cancelled");
    const fast = nestedWithLog();
    fast.nested.laneStarted({ ...lane("s/3", "fast_tool", 40), tool: 2 });
    assert.deepEqual(fast.nested.end(death, true), { tool: "fast_tool", fast: { tool: 2, id: "s/3" }, death });
    assert.equal(fast.nested.wakeAt, undefined, "the lane call ended with its worker");
    const fastSpared = nestedWithLog();
    fastSpared.nested.laneStarted(lane("s/4", "fast_tool", 40));
    assert.equal(fastSpared.nested.end(death, false), undefined);
  });

  it("tells the memory watch once for a journal read, and at each start and end otherwise", () => {
    const { nested, running, run } = nestedWithLog();
    nested.batch(() => {
      nested.laneStarted(lane("s/0", "a", 40));
      nested.laneEnded("s/0");
      nested.laneStarted(lane("s/1", "b", 40));
    });
    assert.deepEqual(running, [16], "once, after the lot: the lane call running now");
    nested.laneEnded("s/1");
    run("routed", 100);
    assert.deepEqual(running, [16, undefined, 32]);
  });
});
