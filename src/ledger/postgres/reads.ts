/**
 * @module src/ledger/postgres/reads
 * The PostgreSQL store's reads. A report that reads several tables does so
 * in one REPEATABLE READ snapshot, so its rows agree with each other while
 * other hosts write. Rows are parsed and shaped as the SQLite store's are
 * (sql/ledger-rows.ts, zod): a hand-edited row that is no valid state fails
 * loudly, never misleads.
 */
import type pg from "pg";
import type { PoolClient } from "pg";
import { classify } from "./connection.js";
import type { PostgresSql } from "./sql.js";
import { toState, toStoredSourceDetail, toStoredSources, type EventRow, type StateRow, type StrikeRow, type ToolDbRow } from "../sql/ledger-rows.js";
import type { ScriptCallDbRow, ScriptCallerDbRow } from "../sql/script-calls-sql.js";
import type { ToolErrorDbRow, ToolVersionDbRow } from "../sql/tool-counts-sql.js";
import { toScriptCallCounts, toScriptCaller, type StoredScriptCallers, type StoredScriptTools } from "../script-calls.js";
import type { StoredSource, StoredSourceDetail } from "../store.js";
import { initialState } from "../transitions.js";
import type { SourceState } from "../types.js";

/** Runs `work` in one REPEATABLE READ READ ONLY transaction on `client`: its reads agree with each other. */
export async function inSnapshot<T>(client: PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection that failed is closed by withClient; asking it to ROLLBACK would wait for nothing.
    if (classify(error) !== "outage") await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

export async function readOneState(client: PoolClient, sql: PostgresSql, source: string): Promise<SourceState> {
  const row = (await client.query<StateRow>(sql.readState, [source])).rows[0];
  return row === undefined ? initialState(source) : toState(row);
}

export function readAllSources(client: PoolClient, sql: PostgresSql): Promise<StoredSource[]> {
  return inSnapshot(client, async () => {
    const versionCounts = (await client.query<{ source: string; n: number }>(sql.allVersionCounts)).rows;
    const lastStrikes = (await client.query<StrikeRow>(sql.allLastStrikes)).rows;
    const tools = (await client.query<ToolDbRow>(sql.allTools)).rows;
    const toolVersions = await queryNamed<ToolVersionDbRow>(client, sql.allToolVersions, {});
    const toolErrors = await queryNamed<ToolErrorDbRow>(client, sql.allToolErrors, {});
    const sources = (await client.query<StateRow>(sql.allSources)).rows;
    return toStoredSources({ sources, versionCounts, lastStrikes, tools, toolVersions, toolErrors });
  });
}

export function readOneSource(client: PoolClient, sql: PostgresSql, source: string, limits: { events: number; strikes: number }): Promise<StoredSourceDetail | null> {
  return inSnapshot(client, async () => {
    const state = (await client.query<StateRow>(sql.readState, [source])).rows[0];
    if (state === undefined) return null;
    const strikes = (await client.query<StrikeRow>(sql.recentStrikes, [source, Math.max(limits.strikes, 1)])).rows;
    const versions = (await client.query<{ n: number }>(sql.versionCount, [source])).rows[0]?.n ?? 0;
    const tools = (await client.query<ToolDbRow>(sql.sourceTools, [source])).rows;
    const events = (await client.query<EventRow>(sql.recentEvents, [source, limits.events])).rows;
    const toolVersions = await queryNamed<ToolVersionDbRow>(client, sql.sourceToolVersions, { source });
    const toolErrors = await queryNamed<ToolErrorDbRow>(client, sql.sourceToolErrors, { source });
    return toStoredSourceDetail(source, { state, versions, strikes, tools, events, toolVersions, toolErrors }, limits);
  });
}

type Numbered = { text: string; names: string[] };

/** Runs a statement written with named parameters (sql/script-calls-sql.ts), numbered by toPositional. */
async function queryNamed<R extends pg.QueryResultRow>(client: PoolClient, statement: Numbered, params: Record<string, unknown>): Promise<R[]> {
  return (await client.query<R>(statement.text, statement.names.map((name) => params[name]))).rows;
}

export function readScriptTools(client: PoolClient, sql: PostgresSql, script: string, limit: number): Promise<StoredScriptTools> {
  return inSnapshot(client, async () => {
    const total = (await queryNamed<{ n: number }>(client, sql.scriptToolsCount, { script }))[0]?.n ?? 0;
    return { total, counts: toScriptCallCounts(await queryNamed<ScriptCallDbRow>(client, sql.scriptTools, { script, limit })) };
  });
}

export function readScriptCallers(client: PoolClient, sql: PostgresSql, source: string, limit: number): Promise<StoredScriptCallers> {
  return inSnapshot(client, async () => {
    const total = (await queryNamed<{ n: number }>(client, sql.scriptCallersCount, { source }))[0]?.n ?? 0;
    return { total, rows: (await queryNamed<ScriptCallerDbRow>(client, sql.scriptCallers, { source, limit })).map(toScriptCaller) };
  });
}
