/**
 * @module src/ledger/postgres/batch
 * One batch of records written to PostgreSQL in one transaction (READ
 * COMMITTED): what makes several hosts on one database exact.
 *
 * 1. The batch is marked in `batches` by its id: a batch whose COMMIT was
 *    sent but never acknowledged (the connection died) is found there when
 *    it is retried, and not counted twice.
 * 2. Every source of the batch is locked (`SELECT … FOR UPDATE`, in order of
 *    name). From then on no other host writes these sources until this
 *    commit, so the state each record's decide() sees is the stored one,
 *    with every strike committed before it: a threshold is crossed by
 *    exactly one record of one host, and one quarantine event is written.
 * 3. Counts are added in place (`calls = calls + n`), never read and written
 *    back, so concurrent hosts lose no count even on rows this lock does not
 *    cover.
 */
import type { PoolClient } from "pg";
import type { PostgresSql } from "./sql.js";
import { runEnd, sumRun } from "../record-runs.js";
import { scriptCountsOf } from "../script-calls.js";
import { STRIKE_MINUTES_KEPT_MS } from "../sqlite/schema.js";
import { toState, type StateRow } from "../sql/ledger-rows.js";
import type { Applied, RecordOptions } from "../store.js";
import { initialState, type Transition } from "../transitions.js";
import { ERRORS_KEPT_PER_TOOL, isStrike, type CallRecord, type SourceState } from "../types.js";

export type BatchItem = { call: CallRecord; options: RecordOptions };

/**
 * Writes `batch` on `client`, inside a transaction the caller opened.
 * Returns null when the batch had been committed already (a retry after a
 * lost acknowledgement); else each record's state after it, in order.
 * `notify` is the writer's id, sent with every change of state.
 */
export async function writeBatch(client: PoolClient, sql: PostgresSql, batchId: string, batch: readonly BatchItem[], notify: string): Promise<Applied[] | null> {
  const sources = [...new Set(batch.map((item) => item.call.source))].sort();
  const begun = await client.query<{ fresh: number }>(sql.beginBatch, [batchId, Date.now(), sources]);
  if (begun.rows[0]?.fresh !== 1) return null;
  const locked = await client.query<StateRow>(sql.lockSources, [sources]);
  const states = new Map<string, SourceState>(locked.rows.map((row) => [row.source, toState(row)]));
  const applied: Applied[] = [];
  for (let start = 0; start < batch.length; ) {
    const first = (batch[start] as BatchItem).call;
    const end = runEnd(batch, start);
    const run = batch.slice(start, end);
    const strikeTimes = await countRun(client, sql, run);
    let state = states.get(first.source) ?? initialState(first.source);
    for (const { options } of run) {
      const change = options.decide(state, strikeTimes);
      if (change !== null) await writeTransition(client, sql, change, notify);
      state = change?.state ?? state;
      applied.push({ state, applied: change });
    }
    states.set(first.source, state);
    start = end;
  }
  return applied;
}

/** Counts a run of one strike, or of calls that count alike; for a strike, returns the kept strike times, its own first. */
async function countRun(client: PoolClient, sql: PostgresSql, run: readonly BatchItem[]): Promise<number[]> {
  const call = (run[0] as BatchItem).call;
  const last = (run[run.length - 1] as BatchItem).call;
  const strike = isStrike(call.outcome);
  const { wallSum, cpuSum, heap } = sumRun(run);
  const scripts = scriptCountsOf(run);
  await client.query({ ...sql.countRun, values: [
    call.source, call.tool, call.version, call.outcome, run.length, strike ? 1 : 0, wallSum, cpuSum, last.wallMs, heap, last.at,
    strike ? call.at : null, strike ? call.outcome : null, strike ? (call.message ?? "") : null,
    scripts.map((count) => count.script), scripts.map((count) => count.calls), scripts.map((count) => count.strikes), scripts.map((count) => count.lastAt),
    call.at,
  ] });
  if (call.outcome !== "ok") await keepToolErrors(client, sql, run);
  if (!strike) return [];
  const keep = (run[0] as BatchItem).options.keepStrikes;
  const before = await client.query<{ at: number }>(sql.keepStrike, [call.source, call.tool, call.version, call.callId, call.outcome, call.message ?? "", call.at, keep - 1, call.caller ?? null, call.at - STRIKE_MINUTES_KEPT_MS]);
  return [call.at, ...before.rows.map((row) => row.at)];
}

/** Keeps the run's latest calls (all of one tool, none ok) with their messages, and drops the tool's older ones: one statement. */
async function keepToolErrors(client: PoolClient, sql: PostgresSql, run: readonly BatchItem[]): Promise<void> {
  const { source, tool, outcome } = (run[0] as BatchItem).call;
  const kept = run.slice(-ERRORS_KEPT_PER_TOOL).map((item) => item.call);
  await client.query({ ...sql.keepToolErrors, values: [
    source, tool, ERRORS_KEPT_PER_TOOL - kept.length, outcome,
    kept.map((call) => call.version), kept.map((call) => call.callId), kept.map((call) => call.message ?? ""), kept.map((call) => call.at), kept.map((call) => call.caller ?? null),
  ] });
}

/** Stores a change of state with its events, and announces it (delivered to listeners at COMMIT). */
export async function writeTransition(client: PoolClient, sql: PostgresSql, change: Transition, notify: string): Promise<void> {
  const { state } = change;
  const quarantined = state.state === "quarantined" ? state : undefined;
  await client.query(sql.writeState, [state.source, state.state, state.since, quarantined?.until ?? null, quarantined?.reason ?? null, quarantined?.actor ?? null]);
  for (const event of change.events) await client.query(sql.insertEvent, [event.at, event.source, event.kind, event.reason, event.until, event.actor]);
  await client.query(sql.notify, [sql.channel, notify]);
}
