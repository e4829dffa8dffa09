/**
 * @module src/pool/script-lanes.test
 * A session's fast lanes on the host, with real journals written by the
 * worker's own writer and a real NestedCalls: a running script's journal is
 * read on the timer (also for a script that became the head before its
 * journal existed), and lines the host cannot place stop the worker.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import type { FastLane } from "../../sandbox/shared/fast-lane-schemas.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";
import { JOURNAL_READ_MS } from "../../sandbox/shared/tuning.js";
import { JournalWriter } from "../../sandbox/worker/journal-writer.js";
import { LaneJournals } from "./lane-journal.js";
import { NestedCalls } from "./nested-calls.js";
import { ScriptLanes } from "./script-lanes.js";
import type { PendingTask } from "./session-types.js";

const limits = { timeoutMs: 1_000, memoryMb: 64, maxOutputBytes: 65_536, maxDepth: 32 };
const bundle = { hash: "a".repeat(64), filename: "agent:test" };

function laneSpec(): FastLane {
  return { tools: [{ name: "word_count", source: "agent:test", bundle, limits }], maxCalls: 10, maxInFlight: 1, caps: { maxModelOutputChars: 1_000, maxModelOutputLines: 100, maxImageBytes: 1_000 } };
}

function script(id: number, lane: FastLane): PendingTask {
  const task: CallTask = { type: "call", callId: `script-${id}`, bundle, tool: "run_code", inputJson: "{}", limits, fastLane: lane };
  return { id, task, limits, key: "k", settle: () => undefined };
}

/** Journal folders to remove once the suite is over. */
const closers: (() => void)[] = [];

function setUp() {
  const journals = new LaneJournals();
  closers.push(() => journals.close());
  const broken: string[] = [];
  const nested = new NestedCalls({ loadTimeoutMs: 1_000, watchdogGraceMs: 100, now: () => performance.now(), send: () => undefined, kill: () => undefined, running: () => undefined });
  let head: PendingTask | undefined;
  const lanes = new ScriptLanes({ journals, logger: pino({ level: "silent" }), nested, head: () => head, broken: (message) => broken.push(message) });
  return { broken, nested, lanes, setHead: (pending: PendingTask | undefined) => (head = pending) };
}

/** Script 1 running on the worker, its journal made and named in its lane. */
function runningScript() {
  const set = setUp();
  const lane = laneSpec();
  set.setHead(script(1, lane));
  set.lanes.open(1, lane);
  return { ...set, lane };
}

describe("script lanes", { timeout: 30_000 }, () => {
  after(() => closers.forEach((close) => close()));

  it("reads the journal of a script that became the head before its journal existed, on the timer", async () => {
    const { broken, nested, lanes, setHead } = setUp();
    const lane = laneSpec();
    const pending = script(1, lane);
    // An idle worker: the script is the head as it is dispatched, and its journal is made as it leaves.
    setHead(pending);
    lanes.headStarted(1);
    lanes.open(1, lane);
    assert.ok(lane.journal !== undefined, "the lane names its journal");
    const writer = new JournalWriter(lane.journal);
    writer.write({ corral: 1, type: "lane", callId: "script-1", id: "script-1/0", tool: 0 });
    // No message comes from the worker: only the timer reads.
    await sleep(JOURNAL_READ_MS * 5);
    assert.equal(nested.running?.tool, "word_count", "the host knows the lane call runs");
    assert.deepEqual(broken, []);
    writer.close();
    lanes.closeAll();
  });

  it("stops the worker for a lane line of a script that is not running", () => {
    const { broken, lanes, lane } = runningScript();
    assert.ok(lane.journal !== undefined);
    const writer = new JournalWriter(lane.journal);
    writer.write({ corral: 1, type: "lane", callId: "script-9", id: "script-9/0", tool: 0 });
    lanes.read();
    assert.equal(broken.length, 1);
    assert.match(broken[0] ?? "", /lane call the host cannot place/);
    writer.close();
    lanes.closeAll();
  });

  it("stops the worker for the record of a lane call that never started", () => {
    const { broken, lanes } = runningScript();
    lanes.records("script-1", [{ tool: 0, callId: "script-1/0", ms: 1, reply: { type: "call", kind: "ok", metrics: { wallMs: 1, cpuMs: 1, heapBytes: 1 }, warm: true } }]);
    assert.equal(broken.length, 1);
    assert.match(broken[0] ?? "", /record of a lane call that was not running/);
    lanes.closeAll();
  });
});
