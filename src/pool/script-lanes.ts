/**
 * @module src/pool/script-lanes
 * A session's Code Mode fast lanes, seen from the host: the journal made
 * for each script it sends (lane-journal.ts), read while that script runs,
 * and what its lines mean: a lane call starts (timed and blamed by
 * NestedCalls), a lane call ends (its record goes to the script's owner).
 *
 * ```
 * script sent ─▶ open(id, lane): a journal, named in the lane
 * script runs ─▶ read(): before each message of the worker, every JOURNAL_READ_MS,
 *                before each memory sample, once the worker is gone
 *   "lane" line ─▶ NestedCalls.laneStarted   record ─▶ laneEnded, fastRecords
 * script answered / worker ended ─▶ close(id): its files are removed
 * ```
 * A line the host cannot place (another script's, a record of a call that
 * is not running, a broken journal) is a broken worker: `broken` stops it.
 */
import type { Logger } from "pino";
import type { FastLane, FastRecord } from "../../sandbox/shared/fast-lane-schemas.js";
import { JOURNAL_READ_MS } from "../../sandbox/shared/tuning.js";
import { JournalError, type LaneJournal, type LaneJournals } from "./lane-journal.js";
import type { NestedCalls } from "./nested-calls.js";
import type { PendingTask } from "./session.js";

export type ScriptLanesDeps = {
  journals: LaneJournals;
  logger: Logger;
  nested: NestedCalls;
  /** The task the worker runs now. */
  head(): PendingTask | undefined;
  /** The worker broke the lane's rules: stop it. */
  broken(message: string): void;
  /** Records of a script's lane calls, for its owner (src/codemode records them). */
  fastRecords?(callId: string, records: FastRecord[]): void;
};

export class ScriptLanes {
  readonly #deps: ScriptLanesDeps;
  /** The journals of scripts sent and not answered, by task id. */
  readonly #journals = new Map<number, LaneJournal>();
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: ScriptLanesDeps) {
    this.#deps = deps;
  }

  /** A journal for the lane of task `id`, named in `lane` (without one the worker runs nothing on the lane: every call goes to the host). */
  open(id: number, lane: FastLane): void {
    try {
      const journal = this.#deps.journals.open();
      this.#journals.set(id, journal);
      lane.journal = journal.path;
      // A script sent to an idle worker became the head before its journal existed: read it on the timer from now.
      if (this.#deps.head()?.id === id) this.headStarted(id);
    } catch (error) {
      delete lane.journal;
      this.#deps.logger.warn({ err: error }, "no file could be made for a Code Mode script's fast lane: its tool calls go through the host");
    }
  }

  /** The task the worker runs now changed: its journal (if it has one) is read on a timer too. */
  headStarted(id: number): void {
    this.stopReading();
    if (!this.#journals.has(id)) return;
    this.#timer = setInterval(() => this.read(), JOURNAL_READ_MS);
    this.#timer.unref();
  }

  stopReading(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Reads the running task's journal: its lane calls that started and ended since the last read, in order. */
  read(): void {
    const head = this.#deps.head();
    const journal = head === undefined ? undefined : this.#journals.get(head.id);
    if (journal === undefined || head === undefined) return;
    let lines;
    try {
      lines = journal.read();
    } catch (error) {
      // Whatever went wrong (a line not the lane's, a file gone), the records from here on cannot be trusted: the worker stops.
      this.close(head.id);
      const why = error instanceof JournalError ? error.message : `it could not be read (${error instanceof Error ? error.message : "unknown"})`;
      this.#deps.broken(`the sandbox worker's fast lane journal is broken: ${why}`);
      return;
    }
    if (lines.length === 0) return;
    // The memory watch reads once, after the lot: what ran between is over by now.
    this.#deps.nested.batch(() => {
      for (const line of lines) {
        if (line.type === "lane") this.#started(head, line.callId, line.id, line.tool);
        else this.records(line.callId, line.records);
      }
    });
  }

  /**
   * Lane records (a journal's, or a message's when the journal failed): each
   * ends the lane call running (refusals ran nothing); the script's owner
   * records them. Records of anything but the running script are a broken worker.
   */
  records(callId: string, records: FastRecord[]): void {
    const head = this.#deps.head();
    if (head === undefined || head.task.type !== "call" || head.task.callId !== callId) {
      this.#deps.broken("the sandbox worker sent lane records of a script that is not running");
      return;
    }
    for (const record of records) {
      if (record.refused === undefined && !this.#deps.nested.laneEnded(record.callId)) {
        this.#deps.broken("the sandbox worker sent the record of a lane call that was not running");
        return;
      }
    }
    this.#deps.fastRecords?.(callId, records);
  }

  /** Task `id` is answered, or its worker ended: its journal's files are removed. */
  close(id: number): void {
    const journal = this.#journals.get(id);
    if (journal === undefined) return;
    this.#journals.delete(id);
    journal.close();
  }

  closeAll(): void {
    this.stopReading();
    for (const id of [...this.#journals.keys()]) this.close(id);
  }

  /**
   * The running script's worker is about to enter a lane call: timed (and
   * blamed for a death) as a host-routed nested call is (nested-calls.ts),
   * from now. A lane call of anything but the running script, or while
   * another runs, is a broken worker.
   */
  #started(head: PendingTask, callId: string, id: string, index: number): void {
    const tool = head.task.type === "call" && head.task.callId === callId ? head.task.fastLane?.tools[index] : undefined;
    if (tool === undefined || !this.#deps.nested.laneStarted({ id, tool: index, name: tool.name, limits: tool.limits })) {
      this.#deps.broken("the sandbox worker started a lane call the host cannot place");
    }
  }
}
