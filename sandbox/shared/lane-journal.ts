/**
 * @module sandbox/shared/lane-journal
 * The journal of a Code Mode script's fast lane: what its worker did on the
 * lane, written to a file the host made for that script, one JSON line per
 * event, instead of one IPC message per event. A line written with
 * `writeSync` is in the kernel (a memory-backed file, /dev/shm where there
 * is one) before the call returns, so it outlives a worker killed a moment
 * later, at a few µs a line against 20 µs and more for a message
 * (docs/benchmarks.md › Code Mode). The worker writes it
 * (sandbox/worker/journal-writer.ts); the host reads it
 * (src/pool/lane-journal.ts) before every message of that worker, on a
 * short timer, and when the worker ends, so it sees every line the worker
 * wrote before whatever the worker sent after it.
 *
 * ```
 * {"type":"lane",…}   a lane call starts: written before the worker enters the tool
 * {"type":"fast",…}   its record: written before the script hears the answer
 * {"type":"next",…}   the rest is in part n+1 (this file is read to its end)
 * ```
 * A file grows to about JOURNAL_PART_BYTES, then the worker goes on in the
 * next part and the host removes the one it has read.
 */
import { z } from "zod";
import { LaneRecords } from "./fast-lane-schemas.js";

/** A script's lane call starts: `callId` is the script's, `id` the lane call's, `tool` its index in the lane's tools. */
export const LaneStart = z.strictObject({ corral: z.literal(1), type: z.literal("lane"), callId: z.string(), id: z.string(), tool: z.number().int().nonnegative() });
export type LaneStart = z.infer<typeof LaneStart>;

/** The journal goes on in part `part` (journalPartPath): this one is over. */
const JournalNext = z.strictObject({ corral: z.literal(1), type: z.literal("next"), part: z.number().int().positive() });

export const JournalLine = z.discriminatedUnion("type", [LaneStart, LaneRecords, JournalNext]);
export type JournalLine = z.infer<typeof JournalLine>;

/** The file of part `part` of the journal at `path` (part 0 is `path` itself). */
export function journalPartPath(path: string, part: number): string {
  return part === 0 ? path : `${path}.${part}`;
}

/** A line about the lane's calls (every line but "next"). */
export type LaneLine = LaneStart | LaneRecords;
