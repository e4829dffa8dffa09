/**
 * @module src/ledger/postgres/sql
 * The PostgreSQL store's statements, for one schema. Rows come back in the
 * shapes of sql/ledger-rows.ts (outcomes as JSON text, BIGINTs as numbers), so
 * one set of parsers (zod, on the way out) reads both stores' rows.
 *
 * A record costs few round trips: the batch's sources are created and
 * locked in two statements, a run of calls that count alike is one
 * statement, a strike one more (its earlier times read, it kept, older ones
 * pruned, together), a run that is not ok one more (its messages kept), a
 * change of state one per row.
 *
 * The statement that counts a run is a named (prepared) one: planned once
 * per connection, not at every run. Its CTEs made planning about half its
 * cost (measured on the loaded 2-core test machine, server on 127.0.0.1:
 * 670-960 µs a statement unprepared, 410-550 prepared, with the version fold
 * of schema 5 or without it).
 */
import { postgresDialect, toPositional } from "../sql/dashboard-sql.js";
import { quoteIdent } from "./schema.js";
import { scriptCallsSql } from "../sql/script-calls-sql.js";
import { toolCountUpdates, toolCountsSql } from "../sql/tool-counts-sql.js";

const STATE_COLUMNS = "source, state, since, until, reason, actor, last_version";
const STRIKE_COLUMNS = "source, tool, version, call_id, outcome, message, at, caller";
const TOOL_COLUMNS = `source, tool, calls, strikes, outcomes::text AS outcomes, total_wall_ms, total_cpu_ms, last_wall_ms, max_heap_bytes,
  last_call_at, last_strike_at, last_strike_outcome, last_strike_message`;
/** Every column of `tools`, in the order a statement that writes the whole row gives them. */
const TOOL_ROW = `source, tool, calls, strikes, outcomes, total_wall_ms, total_cpu_ms, last_wall_ms, max_heap_bytes, last_call_at,
  last_strike_at, last_strike_outcome, last_strike_message, errors, cur_version, cur_calls, cur_errors, cur_strikes`;

export type PostgresSql = ReturnType<typeof postgresSql>;

/**
 * A prepared statement's name: unique per schema and per text (pg refuses one
 * name for two texts on a connection), at most 63 bytes (PostgreSQL cuts longer
 * ones). `v5`: the texts of schema version 5; a later version that changes them
 * names them anew.
 */
const prepared = (schema: string, name: string, text: string) => ({ name: `v5:${schema}:${name}`, text });

export function postgresSql(schema: string) {
  const s = quoteIdent(schema);
  const scripts = scriptCallsSql(postgresDialect(s));
  const toolCounts = toolCountsSql(postgresDialect(s));
  return {
    /** The channel every change of state is announced on (NOTIFY), with the writer's id as payload. */
    channel: `corral_ledger:${schema}`,
    /** $1 batch id, $2 now, $3 the batch's sources: marks the batch, creates the sources it names; `fresh` 0 if it was committed before. */
    beginBatch: `WITH b AS (INSERT INTO ${s}.batches (id, at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1),
      n AS (INSERT INTO ${s}.sources (source, state) SELECT x, 'active' FROM unnest($3::text[]) AS x ORDER BY x ON CONFLICT DO NOTHING)
      SELECT count(*)::int AS fresh FROM b`,
    /**
     * The row lock that makes a source's writes one at a time across every
     * host: taken in one order (by name), so two batches never deadlock.
     */
    lockSources: `SELECT ${STATE_COLUMNS} FROM ${s}.sources WHERE source = ANY($1::text[]) ORDER BY source FOR UPDATE`,
    /**
     * $1 source $2 tool $3 version $4 outcome $5 calls $6 strikes $7 wall sum $8 cpu sum $9 last wall $10 heap $11 at
     * $12-$14 the strike's at, outcome and message (null if none) $15-$18 the script sources among the run's
     * calls, with their calls, strikes and last at (script-calls.ts, scriptCountsOf; empty arrays when no script
     * made them): their counters are counted here too, so a script's calls cost no round trip more; and the
     * tool's counts of another version, if its row holds those, folded into tool_versions (sql/tool-counts-sql.ts).
     * $19 the run's first call's at: when the source was first seen at $3, if it never was before.
     */
    countRun: prepared(schema, "run", `WITH v AS (INSERT INTO ${s}.versions (source, version, first_at) VALUES ($1, $3, $19) ON CONFLICT DO NOTHING),
      fold AS (${toolCounts.fold({ source: "$1", tool: "$2", version: "$3" })}),
      sc AS (${scripts.countRows(`SELECT x.via, $1, $2, $4, x.calls, x.strikes, x.last_at
        FROM unnest($15::text[], $16::bigint[], $17::bigint[], $18::bigint[]) AS x (via, calls, strikes, last_at)`)}),
      l AS (UPDATE ${s}.sources SET last_version = $3 WHERE source = $1 AND last_version IS DISTINCT FROM $3)
      INSERT INTO ${s}.tools AS t (${TOOL_ROW}) VALUES ($1, $2, $5, $6, jsonb_build_object($4::text, $5::bigint), $7, $8, $9, $10, $11, $12, $13, $14,
        CASE WHEN $4::text = 'ok' THEN 0 ELSE $5::bigint END, $3, $5, CASE WHEN $4::text = 'ok' THEN 0 ELSE $5::bigint END, $6)
      ON CONFLICT (source, tool) DO UPDATE SET calls = t.calls + excluded.calls, strikes = t.strikes + excluded.strikes,
        outcomes = jsonb_set(t.outcomes, ARRAY[$4::text], to_jsonb(coalesce((t.outcomes ->> $4::text)::bigint, 0) + $5::bigint)),
        total_wall_ms = t.total_wall_ms + excluded.total_wall_ms, total_cpu_ms = t.total_cpu_ms + excluded.total_cpu_ms,
        last_wall_ms = excluded.last_wall_ms, max_heap_bytes = greatest(t.max_heap_bytes, excluded.max_heap_bytes),
        last_call_at = excluded.last_call_at,
        last_strike_at = coalesce(excluded.last_strike_at, t.last_strike_at),
        last_strike_outcome = coalesce(excluded.last_strike_outcome, t.last_strike_outcome),
        last_strike_message = coalesce(excluded.last_strike_message, t.last_strike_message),
        ${toolCountUpdates("t.")}`),
    /**
     * $1 source $2 tool $3 how many of its kept errors stay (ERRORS_KEPT_PER_TOOL less the new ones) $4 outcome
     * $5-$9 the new ones' versions, call ids, messages, times and callers, oldest first: keeps them, drops the
     * tool's older ones. A statement only for a run that is not ok; every part sees the table as it was before it.
     */
    keepToolErrors: prepared(schema, "errors", `WITH prev AS (SELECT id FROM ${s}.tool_errors WHERE source = $1 AND tool = $2 ORDER BY id DESC LIMIT $3),
      ins AS (INSERT INTO ${s}.tool_errors (source, tool, version, call_id, outcome, message, at, caller)
        SELECT $1, $2, x.version, x.call_id, $4, x.message, x.at, x.caller
        FROM unnest($5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[]) WITH ORDINALITY AS x (version, call_id, message, at, caller, n) ORDER BY x.n)
      DELETE FROM ${s}.tool_errors WHERE source = $1 AND tool = $2 AND id NOT IN (SELECT id FROM prev)`),
    /**
     * $1 source $2 tool $3 version $4 call id $5 outcome $6 message $7 at $8 keepStrikes - 1 $9 caller
     * $10 the oldest minute the timeline keeps: keeps the strike, prunes all but the $8 newest before it,
     * counts it in its minute (dropping minutes older than $10), and returns those $8's times (newest first).
     * Every part sees the tables as they were before this statement.
     */
    keepStrike: `WITH prev AS (SELECT id, at FROM ${s}.strikes WHERE source = $1 ORDER BY id DESC LIMIT $8),
      ins AS (INSERT INTO ${s}.strikes (source, tool, version, call_id, outcome, message, at, caller) VALUES ($1, $2, $3, $4, $5, $6, $7, $9)),
      del AS (DELETE FROM ${s}.strikes WHERE source = $1 AND id NOT IN (SELECT id FROM prev)),
      minute AS (INSERT INTO ${s}.strike_minutes AS m (source, minute, n) VALUES ($1, $7::bigint - $7::bigint % 60000, 1)
        ON CONFLICT (source, minute) DO UPDATE SET n = m.n + 1),
      old AS (DELETE FROM ${s}.strike_minutes WHERE source = $1 AND minute < $10::bigint)
      SELECT at FROM prev ORDER BY id DESC`,
    /** $1 source $2 version $3 at $4 tools: a load makes the source, its version and its tools (zero calls) known; counts nothing. */
    recordLoad: `WITH n AS (INSERT INTO ${s}.sources (source, state, last_version) VALUES ($1, 'active', $2) ON CONFLICT DO NOTHING),
      v AS (INSERT INTO ${s}.versions (source, version, first_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING)
      INSERT INTO ${s}.tools (${TOOL_ROW}) SELECT $1, x, 0, 0, '{}'::jsonb, 0, 0, 0, 0, 0, NULL, NULL, NULL, 0, NULL, 0, 0, 0 FROM unnest($4::text[]) AS x ON CONFLICT DO NOTHING`,
    writeState: `INSERT INTO ${s}.sources (source, state, since, until, reason, actor) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (source) DO UPDATE SET state = excluded.state, since = excluded.since, until = excluded.until, reason = excluded.reason, actor = excluded.actor`,
    insertEvent: `INSERT INTO ${s}.events (at, source, kind, reason, until, actor) VALUES ($1, $2, $3, $4, $5, $6)`,
    notify: "SELECT pg_notify($1, $2)",
    pruneBatches: `DELETE FROM ${s}.batches WHERE at < $1`,
    readState: `SELECT ${STATE_COLUMNS} FROM ${s}.sources WHERE source = $1`,
    lockState: `SELECT ${STATE_COLUMNS} FROM ${s}.sources WHERE source = $1 FOR UPDATE`,
    recentStrikes: `SELECT ${STRIKE_COLUMNS} FROM ${s}.strikes WHERE source = $1 ORDER BY id DESC LIMIT $2`,
    recentEvents: `SELECT at, source, kind, reason, until, actor FROM ${s}.events WHERE source = $1 ORDER BY id DESC LIMIT $2`,
    versionCount: `SELECT count(*)::int AS n FROM ${s}.versions WHERE source = $1`,
    sourceTools: `SELECT ${TOOL_COLUMNS} FROM ${s}.tools WHERE source = $1`,
    allSources: `SELECT ${STATE_COLUMNS} FROM ${s}.sources`,
    allVersionCounts: `SELECT source, count(*)::int AS n FROM ${s}.versions GROUP BY source`,
    allLastStrikes: `SELECT DISTINCT ON (source) ${STRIKE_COLUMNS} FROM ${s}.strikes ORDER BY source, id DESC`,
    allTools: `SELECT ${TOOL_COLUMNS} FROM ${s}.tools`,
    allToolVersions: toPositional(toolCounts.allVersions),
    allToolErrors: toPositional(toolCounts.allErrors),
    sourceToolVersions: toPositional(toolCounts.sourceVersions),
    sourceToolErrors: toPositional(toolCounts.sourceErrors),
    scriptToolsCount: toPositional(scripts.toolsCount),
    scriptTools: toPositional(scripts.tools),
    scriptCallersCount: toPositional(scripts.callersCount),
    scriptCallers: toPositional(scripts.callers),
  };
}
