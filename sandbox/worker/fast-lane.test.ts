/**
 * @module sandbox/worker/fast-lane.test
 * A Code Mode script's fast lane in this process, with real isolates: what
 * it writes to its journal (each call's "lane" line before it runs, its
 * record before the script hears the answer), when it wakes the host, and
 * what it does when the journal fails.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastLane as FastLaneSpec, LaneRecords } from "../shared/fast-lane-schemas.js";
import type { CallReply } from "../shared/replies.js";
import type { CallTask } from "../shared/tasks.js";
import type { LaneLine } from "../shared/lane-journal.js";
import { FastLane } from "./fast-lane.js";
import { JournalWriter } from "./journal-writer.js";
import { NestedQueue } from "./nested-queue.js";
import { WorkerCore } from "./worker-core.js";

const LIMITS = { timeoutMs: 2_000, memoryMb: 32, maxOutputBytes: 64 * 1024, maxDepth: 16 };
const CAPS = { maxModelOutputChars: 10_000, maxModelOutputLines: 500, maxImageBytes: 1024 * 1024 };

function bundleOf(code: string, filename: string) {
  return { hash: createHash("sha256").update(code).digest("hex"), filename, code };
}

const ADD = bundleOf(
  `const { defineTool } = require("corral"); const { z } = require("zod");
module.exports = defineTool({ name: "add", description: "adds", input: z.object({ a: z.number(), b: z.number() }), effects: [], run: ({ a, b }) => ({ sum: a + b }) });`,
  "agent:add",
);

/** A script module as src/codemode/script-module.ts makes one (plain JavaScript here: nothing to strip). */
function scriptTask(callId: string, body: string, maxCalls = 10): CallTask {
  const code = `module.exports = require("corral:codemode").script(async function (tools, search, describe) {\n${body}\n});`;
  return { type: "call", callId, bundle: bundleOf(code, "code:test"), tool: "run_code", inputJson: JSON.stringify({ tools: ["add"], maxCalls, maxInFlight: 1 }), limits: LIMITS, fresh: true };
}

describe("fast lane, in process", { timeout: 60_000 }, () => {
  const core = new WorkerCore({ maxWarmIsolates: 8, maxWarmHeapMb: 256, loadTimeoutMs: 5_000, defaultMemoryMb: 32 });
  const dir = mkdtempSync(join(tmpdir(), "corral-fast-lane-test-"));
  after(() => {
    core.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;

  /** Runs `body` as a script whose lane has `add`; `journal` wraps the real writer. */
  async function runScript(body: string, wrap: (writer: JournalWriter) => FastLaneDeps["journal"] = (writer) => writer) {
    const callId = `script-${n++}`;
    const path = join(dir, `${callId}.jsonl`);
    writeFileSync(path, "");
    const spec: FastLaneSpec = { tools: [{ name: "add", source: "agent:add", bundle: ADD, limits: LIMITS }], maxCalls: 10, maxInFlight: 1, caps: CAPS, journal: path };
    const sent: LaneRecords[] = [];
    let wakes = 0;
    const queue = new NestedQueue();
    const lane = new FastLane(callId, spec, {
      core,
      queue,
      journal: wrap(new JournalWriter(path)),
      sendRecords: (message) => {
        sent.push(message);
        return Promise.resolve();
      },
      wake: () => wakes++,
    });
    const reply = (await core.handle(scriptTask(callId, body))) as CallReply;
    await queue.idle();
    lane.close();
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as LaneLine);
    return { reply, lines, sent, wakes, callId };
  }

  type FastLaneDeps = ConstructorParameters<typeof FastLane>[2];

  const kinds = (lines: LaneLine[]) => lines.map((line) => (line.type === "lane" ? `lane ${line.id}` : `fast ${line.records.map((r) => r.callId).join(",")}`));

  it("writes each call's lane line before it runs and its record before the script goes on; a cold call wakes the host as it starts and ends", async () => {
    const { reply, lines, wakes, callId } = await runScript(
      "const a = await tools.add({ a: 1, b: 2 }); const b = await tools.add({ a: a.sum, b: 4 }); const c = await tools.add({ a: b.sum, b: 5 }); return c.sum;",
    );
    assert.equal(reply.kind, "ok", JSON.stringify(reply));
    assert.deepEqual(JSON.parse(reply.envelopeJson ?? "").structured, 12);
    assert.deepEqual(kinds(lines), [`lane ${callId}/0`, `fast ${callId}/0`, `lane ${callId}/1`, `fast ${callId}/1`, `lane ${callId}/2`, `fast ${callId}/2`]);
    const first = lines[1];
    assert.ok(first?.type === "fast" && first.records[0]?.reply?.kind === "ok");
    // The first call loaded add's isolate in the queue: it woke the host as it started and as it ended. A call
    // whose last one was slow (the first of a new isolate may be) takes the queue too; a warm quick one wakes nobody.
    assert.ok(wakes >= 2 && wakes <= 6 && wakes % 2 === 0, `woke the host ${wakes} times`);
  });

  it("a journal that fails: that record goes to the host as a message, the answer still comes, and nothing more runs on the lane", async () => {
    let writes = 0;
    const { reply, lines, sent, callId } = await runScript("const a = await tools.add({ a: 1, b: 2 }); const b = await tools.add({ a: a.sum, b: 4 }); return b.sum;", (writer) => ({
      write: (line) => {
        // The fourth line is the second call's record.
        if (++writes === 4) throw new Error("no space left");
        writer.write(line);
      },
      close: () => writer.close(),
    }));
    assert.equal(reply.kind, "ok", JSON.stringify(reply));
    assert.equal(JSON.parse(reply.envelopeJson ?? "").structured, 7);
    assert.deepEqual(kinds(lines), [`lane ${callId}/0`, `fast ${callId}/0`, `lane ${callId}/1`]);
    assert.deepEqual(
      sent.map((message) => message.records.map((r) => r.callId)),
      [[`${callId}/1`]],
    );
  });

  it("a lane line that cannot be written: the call does not run on the lane", async () => {
    // The host's path is not here: the script sees the call go unanswered within its limit, and no record is made.
    const { reply, lines, sent } = await runScript("await tools.add({ a: 1, b: 2 }); return 1;", () => ({
      write: () => {
        throw new Error("no space left");
      },
      close: () => undefined,
    }));
    assert.notEqual(reply.kind, "ok", "the call went to the host, which this test has not");
    assert.deepEqual(lines, []);
    assert.deepEqual(sent, []);
  });
});
