/**
 * @module src/library/sql
 * What both SQL stores share: the tables (one text, two dialects of
 * integer), the rows they read, and how a row becomes a StoredTool. The
 * tables are independent of the ledger's schema version, as the capability
 * store's are: a ledger from before them simply gains them.
 */
import { StoredTool, StoredVersion, type CurrentTool } from "./types.js";

/** `int`: INTEGER for SQLite, BIGINT for PostgreSQL; `prefix`: the schema, quoted, with its dot. */
export function libraryTables(prefix: string, int: string, suffix: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${prefix}library_modules (
  hash       TEXT PRIMARY KEY,
  code       TEXT NOT NULL,
  bytes      ${int} NOT NULL,
  created_at ${int} NOT NULL
)${suffix};
CREATE TABLE IF NOT EXISTS ${prefix}library_tools (
  name       TEXT PRIMARY KEY,
  agent      TEXT NOT NULL,
  current    ${int} NOT NULL CHECK (current >= 1),
  retired_at ${int},
  updated_at ${int} NOT NULL
)${suffix};
CREATE TABLE IF NOT EXISTS ${prefix}library_versions (
  name       TEXT NOT NULL,
  version    ${int} NOT NULL CHECK (version >= 1),
  hash       TEXT NOT NULL,
  manifest   TEXT NOT NULL,
  caller     TEXT,
  created_at ${int} NOT NULL,
  PRIMARY KEY (name, version)
)${suffix};
CREATE INDEX IF NOT EXISTS library_tools_by_agent ON ${prefix}library_tools (agent, name);
`;
}

/** A tool row joined with its count of versions. */
export type ToolRow = { name: string; agent: string; current: number | string; versions: number | string; retired_at: number | string | null; updated_at: number | string };
export type CurrentRow = ToolRow & { hash: string; manifest: string };
export type VersionRow = { name: string; version: number | string; agent: string; hash: string; manifest: string; caller: string | null; created_at: number | string };

const num = (value: number | string): number => Number(value);

/** Rows are parsed on the way out: a row edited by hand into nonsense is an error here, not a wrong answer later. */
export function toolFromRow(row: ToolRow): StoredTool {
  return StoredTool.parse({ name: row.name, agent: row.agent, current: num(row.current), versions: num(row.versions), retiredAt: row.retired_at === null ? null : num(row.retired_at), updatedAt: num(row.updated_at) });
}

/**
 * Not parsed here: one row edited into nonsense must not hide the others
 * from a host's sync, which checks each row itself (library.ts) and skips a
 * bad one with an error in the log.
 */
export function currentFromRow(row: CurrentRow): CurrentTool {
  const retiredAt = row.retired_at === null ? null : num(row.retired_at);
  return { name: row.name, agent: row.agent, current: num(row.current), versions: num(row.versions), retiredAt, updatedAt: num(row.updated_at), hash: row.hash, manifestJson: row.manifest };
}

export function versionFromRow(row: VersionRow): StoredVersion {
  return StoredVersion.parse({ name: row.name, version: num(row.version), agent: row.agent, hash: row.hash, manifestJson: row.manifest, caller: row.caller, createdAt: num(row.created_at) });
}

/** The SELECT list and joins of a tool with its version count (and, for `current`, its current version). */
export function toolSelect(prefix: string, withCurrent: boolean): string {
  const counts = `(SELECT count(*) FROM ${prefix}library_versions v2 WHERE v2.name = t.name) AS versions`;
  return withCurrent
    ? `SELECT t.name, t.agent, t.current, t.retired_at, t.updated_at, ${counts}, v.hash, v.manifest FROM ${prefix}library_tools t JOIN ${prefix}library_versions v ON v.name = t.name AND v.version = t.current`
    : `SELECT t.name, t.agent, t.current, t.retired_at, t.updated_at, ${counts} FROM ${prefix}library_tools t`;
}

export function versionSelect(prefix: string): string {
  return `SELECT v.name, v.version, t.agent, v.hash, v.manifest, v.caller, v.created_at FROM ${prefix}library_versions v JOIN ${prefix}library_tools t ON t.name = v.name`;
}
