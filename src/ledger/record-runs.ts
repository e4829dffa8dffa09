/**
 * @module src/ledger/record-runs
 * What both disk and server stores do with a batch of records: split it
 * into runs (one strike alone, or calls that count alike), and sum a run
 * so that one statement counts it.
 */
import { isStrike, type CallRecord } from "./types.js";

/**
 * Whether `next` counts exactly as `first` does (same row, same outcome, no
 * strike), so one statement can count both. The script sources (`via`) of a
 * run may differ: their counters are summed per source (scriptCountsOf), so
 * calls of one tool from many scripts at once still count as one run.
 */
export function countsWith(first: CallRecord, next: CallRecord): boolean {
  return !isStrike(next.outcome) && next.source === first.source && next.tool === first.tool && next.version === first.version && next.outcome === first.outcome;
}

/** Where the run that starts at `start` ends (exclusive): after a strike at once, else after the calls that count as it does. */
export function runEnd(batch: readonly { call: CallRecord }[], start: number): number {
  const first = (batch[start] as { call: CallRecord }).call;
  let end = start + 1;
  if (!isStrike(first.outcome)) while (end < batch.length && countsWith(first, (batch[end] as { call: CallRecord }).call)) end++;
  return end;
}

/** A run's sums: its wall and cpu times, its largest heap. */
export function sumRun(run: readonly { call: CallRecord }[]): { wallSum: number; cpuSum: number; heap: number } {
  let wallSum = 0;
  let cpuSum = 0;
  let heap = 0;
  for (const { call } of run) {
    wallSum += call.wallMs;
    cpuSum += call.cpuMs;
    heap = Math.max(heap, call.heapBytes);
  }
  return { wallSum, cpuSum, heap };
}
