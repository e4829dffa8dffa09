/**
 * @module src/pool/lane-journal.test
 * The host's reader of a fast lane's journal against the worker's writer:
 * whole lines only, in order, across parts, and a clear error for a line
 * that is not the lane's.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { JOURNAL_PART_BYTES } from "../../sandbox/shared/tuning.js";
import { journalPartPath, type LaneLine } from "../../sandbox/shared/lane-journal.js";
import { JournalWriter, openJournal } from "../../sandbox/worker/journal-writer.js";
import { JournalError, LaneJournal, LaneJournals } from "./lane-journal.js";

const dir = mkdtempSync(join(tmpdir(), "corral-journal-test-"));
let n = 0;
const fresh = () => new LaneJournal(join(dir, `j${n++}.jsonl`));

const lane = (id: string): LaneLine => ({ corral: 1, type: "lane", callId: "s", id, tool: 0 });
const record = (id: string, envelope = "{}"): LaneLine => ({
  corral: 1,
  type: "fast",
  callId: "s",
  records: [{ tool: 0, callId: id, ms: 0.1, reply: { type: "call", kind: "ok", metrics: { wallMs: 0.1, cpuMs: 0.1, heapBytes: 1 }, warm: true, envelopeJson: envelope } }],
});

describe("lane journal", { timeout: 30_000 }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the lines the worker wrote, in order, each once", () => {
    const journal = fresh();
    const writer = new JournalWriter(journal.path);
    writer.write(lane("s/0"));
    writer.write(record("s/0"));
    assert.deepEqual(journal.read(), [lane("s/0"), record("s/0")]);
    assert.deepEqual(journal.read(), [], "nothing new");
    writer.write(lane("s/1"));
    assert.deepEqual(journal.read(), [lane("s/1")]);
    writer.close();
    journal.close();
    assert.equal(existsSync(journal.path), false, "its file is removed");
  });

  it("leaves a line the worker has not ended for the next read", () => {
    const journal = fresh();
    const text = `${JSON.stringify(lane("s/0"))}\n`;
    appendFileSync(journal.path, text.slice(0, 20));
    assert.deepEqual(journal.read(), []);
    appendFileSync(journal.path, text.slice(20));
    assert.deepEqual(journal.read(), [lane("s/0")]);
    journal.close();
  });

  it("follows the journal into its next parts and removes each part it finished", () => {
    const journal = fresh();
    const writer = new JournalWriter(journal.path);
    // Lines of about 10 KB: the journal passes JOURNAL_PART_BYTES twice and more.
    const envelope = JSON.stringify({ ok: true, output: "x".repeat(10_000) });
    const count = Math.ceil((2.5 * JOURNAL_PART_BYTES) / 10_000);
    const seen: LaneLine[] = [];
    for (let i = 0; i < count; i++) {
      writer.write(record(`s/${i}`, envelope));
      if (i % 37 === 0) seen.push(...journal.read());
    }
    seen.push(...journal.read());
    assert.equal(seen.length, count);
    assert.deepEqual(
      seen.map((line) => (line.type === "fast" ? line.records[0]?.callId : "")),
      Array.from({ length: count }, (_, i) => `s/${i}`),
    );
    assert.equal(existsSync(journalPartPath(journal.path, 0)), false, "part 0 was read and removed");
    assert.equal(existsSync(journalPartPath(journal.path, 2)), true, "the part being written is kept");
    writer.close();
    journal.close();
    assert.equal(existsSync(journalPartPath(journal.path, 2)), false);
  });

  it("refuses a line that is not the lane's, and a part out of turn, with a JournalError", () => {
    const notJson = fresh();
    appendFileSync(notJson.path, "{oops\n");
    assert.throws(() => notJson.read(), JournalError);
    notJson.close();
    const foreign = fresh();
    appendFileSync(foreign.path, `${JSON.stringify({ corral: 1, type: "replies", replies: [] })}\n`);
    assert.throws(() => foreign.read(), /not the lane's/);
    foreign.close();
    const skipped = fresh();
    appendFileSync(skipped.path, `${JSON.stringify({ corral: 1, type: "next", part: 3 })}\n`);
    assert.throws(() => skipped.read(), /part 3 out of turn/);
    skipped.close();
  });

  it("a journal that cannot be opened fails every write, so nothing is taken as written", () => {
    assert.throws(() => openJournal(undefined).write(lane("s/0")), /could not be opened \(the host gave none\)/);
    assert.throws(() => openJournal(join(dir, "no-such-dir", "j.jsonl")).write(lane("s/0")), /could not be opened/);
  });

  it("keeps one pool's journals in one directory, removed with the pool", () => {
    const journals = new LaneJournals();
    const first = journals.open();
    const second = journals.open();
    assert.notEqual(first.path, second.path);
    const home = dirname(first.path);
    assert.equal(dirname(second.path), home);
    assert.deepEqual(readdirSync(home).sort(), [first.path, second.path].map((path) => path.slice(home.length + 1)).sort());
    first.close();
    journals.close();
    assert.equal(existsSync(home), false);
  });
});
