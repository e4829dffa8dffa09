/**
 * @module src/ledger/sqlite/schema
 * The ledger's SQLite schema and its migration. `PRAGMA user_version` holds
 * the schema's version: a file from a newer corral is refused rather than
 * misread, and an older one is migrated forward inside one transaction, so
 * two processes opening a new file at once cannot both create it.
 *
 * Counts are kept per (source, tool), across every version: that is how a
 * source's record outlives each of its versions. Outcome counts are a JSON
 * object in that row, so a new kind in result.ts needs no migration, and an
 * ok call writes one row (the commit, not the statements, is what costs).
 */
import type Database from "better-sqlite3";
import { SQLITE_DIALECT } from "../sql/dashboard-sql.js";
import { LedgerUnavailableError } from "../errors.js";
import { scriptCallsTable } from "../sql/script-calls-sql.js";
import { toolCountColumns, toolCountTables } from "../sql/tool-counts-sql.js";

export const SCHEMA_VERSION = 5;

/** How long the strike timeline keeps its minutes: the dashboard's longest window (a week) and a day more. */
export const STRIKE_MINUTES_KEPT_MS = 8 * 24 * 3_600_000;

const SCHEMA_V1 = `
CREATE TABLE sources (
  source       TEXT PRIMARY KEY,
  state        TEXT NOT NULL CHECK (state IN ('active', 'quarantined')),
  since        INTEGER,           -- ms epoch of the last change of state; NULL: never changed
  until        INTEGER,           -- quarantined: ms epoch it ends; NULL: until released
  reason       TEXT,
  actor        TEXT,
  last_version TEXT               -- the version of the latest call
) WITHOUT ROWID;

-- Every version a source was called at; written once per version, not per call.
CREATE TABLE versions (
  source   TEXT NOT NULL,
  version  TEXT NOT NULL,
  first_at INTEGER NOT NULL,
  PRIMARY KEY (source, version)
) WITHOUT ROWID;

-- One row per (source, tool): a call dirties this one page, so a commit stays small.
CREATE TABLE tools (
  source              TEXT NOT NULL,
  tool                TEXT NOT NULL,
  calls               INTEGER NOT NULL,
  strikes             INTEGER NOT NULL,
  outcomes            TEXT NOT NULL,    -- JSON object: outcome kind → calls
  total_wall_ms       REAL NOT NULL,
  total_cpu_ms        REAL NOT NULL,
  last_wall_ms        REAL NOT NULL,
  max_heap_bytes      INTEGER NOT NULL,
  last_call_at        INTEGER NOT NULL,
  last_strike_at      INTEGER,
  last_strike_outcome TEXT,
  last_strike_message TEXT,
  PRIMARY KEY (source, tool)
) WITHOUT ROWID;

-- The latest strikes of each source with their messages; older ones are pruned.
CREATE TABLE strikes (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  source  TEXT NOT NULL,
  tool    TEXT NOT NULL,
  version TEXT NOT NULL,
  call_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  message TEXT NOT NULL,
  at      INTEGER NOT NULL
);
CREATE INDEX strikes_by_source ON strikes (source, id);

-- The audit log of state changes: only ever appended to.
CREATE TABLE events (
  id     INTEGER PRIMARY KEY AUTOINCREMENT,
  at     INTEGER NOT NULL,
  source TEXT NOT NULL,
  kind   TEXT NOT NULL CHECK (kind IN ('quarantine', 'release', 'expire', 'manual_quarantine')),
  reason TEXT NOT NULL,
  until  INTEGER,
  actor  TEXT NOT NULL
);
CREATE INDEX events_by_source ON events (source, id);
`;

/**
 * Version 2: strikes counted per source and minute, for the dashboard's
 * timeline (the strikes table keeps only each source's latest few). Written
 * with each strike, in its transaction; minutes older than
 * STRIKE_MINUTES_KEPT_MS are dropped as the source's next strike comes.
 * Filled at migration from the strikes still kept.
 */
const SCHEMA_V2 = `
CREATE TABLE strike_minutes (
  source TEXT NOT NULL,
  minute INTEGER NOT NULL,          -- ms epoch, a multiple of 60,000
  n      INTEGER NOT NULL,
  PRIMARY KEY (source, minute)
) WITHOUT ROWID;
-- Covering: the timeline of all sources sums n over a range of minutes without visiting the table.
CREATE INDEX strike_minutes_by_minute ON strike_minutes (minute, n);
INSERT INTO strike_minutes (source, minute, n) SELECT source, at - at % 60000, count(*) FROM strikes GROUP BY 1, 2;
`;

/** Version 3: who a strike's call was made for (`mcp:<session>`, `model:<uuid>`); NULL for the program's own calls. */
const SCHEMA_V3 = "ALTER TABLE strikes ADD COLUMN caller TEXT;";

/**
 * Version 4: which tools Code Mode scripts called (script-calls.ts): a
 * counter per (script source, tool source, tool, outcome kind), counted
 * from each record's `via`. The index answers "which scripts called this
 * source's tools". Empty at migration: older records never named a script.
 */
const SCHEMA_V4 = `${scriptCallsTable(SQLITE_DIALECT, "INTEGER")} WITHOUT ROWID;
CREATE INDEX script_calls_by_source ON script_calls (source, via);`;

/**
 * Version 5: every outcome kind seen per tool and version (sql/tool-counts-sql.ts):
 * a tool's non-ok calls (`errors`, filled here from its outcome counts), its
 * counts per version (the current one in its row, earlier ones folded into
 * tool_versions), and its latest non-ok calls with their messages. Calls
 * recorded before the migration have no version: tool_versions starts empty.
 */
const SCHEMA_V5 = `${toolCountColumns("INTEGER").map((column) => `ALTER TABLE tools ADD COLUMN ${column};`).join("\n")}
UPDATE tools SET errors = calls - coalesce(json_extract(outcomes, '$.ok'), 0);
${toolCountTables(SQLITE_DIALECT, "INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT", " WITHOUT ROWID")};`;

/** Brings the file's schema to SCHEMA_VERSION; `path` only names the file in errors. */
export function migrate(db: Database.Database, path: string): void {
  db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new LedgerUnavailableError(
        `the ledger database ${path} has schema version ${version}, newer than this corral's ${SCHEMA_VERSION}; upgrade corral or use another ledger file`,
        { path, version },
      );
    }
    if (version < 1) db.exec(SCHEMA_V1);
    if (version < 2) db.exec(SCHEMA_V2);
    if (version < 3) db.exec(SCHEMA_V3);
    if (version < 4) db.exec(SCHEMA_V4);
    if (version < 5) db.exec(SCHEMA_V5);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
