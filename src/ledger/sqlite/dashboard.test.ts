/**
 * @module src/ledger/sqlite/dashboard.test
 * SqliteDashboardReader on real ledger files written by the real Ledger: the
 * shared reader suite (dashboard-reader.case.ts), then what is SQLite's own:
 * a version that stays while nobody commits, the strike timeline filled when
 * an older ledger is migrated, the refusal of files that are no ledger (and
 * nothing written to them), and a ledger of a million calls read a page at a
 * time.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { NotALedgerError } from "../errors.js";
import { readMillionCalls, runDashboardReaderSuite } from "../dashboard-reader.case.js";
import { Ledger } from "../ledger.js";
import { checkLedgerFile, SqliteDashboardReader } from "./dashboard.js";
import { SqliteLedgerStore } from "./store.js";
import { SCHEMA_VERSION } from "./schema.js";
import { MINUTE_MS, T0, makeCall, tempDir, versionOf } from "../testing/fixtures.js";
import { V5_COLUMNS, V5_TABLES } from "../testing/upgrade.js";

const dir = tempDir();
after(() => dir.remove());
let files = 0;
const nextPath = () => join(dir.path, `ledger-${++files}.db`);
const NEVER = { strikes: 1_000, windowMs: MINUTE_MS, quarantineMs: null };

async function withReader(path: string, fn: (reader: SqliteDashboardReader) => Promise<void>): Promise<void> {
  const reader = new SqliteDashboardReader(path);
  try {
    await fn(reader);
  } finally {
    await reader.close();
  }
}

runDashboardReaderSuite("SqliteDashboardReader", () => {
  const path = nextPath();
  return { store: path, openReader: async () => new SqliteDashboardReader(path) };
});

describe("SqliteDashboardReader", { timeout: 120_000 }, () => {
  it("keeps its version while nobody commits", async () => {
    const path = nextPath();
    const ledger = new Ledger({ store: path, policy: NEVER });
    await ledger.record(makeCall());
    await withReader(path, async (reader) => {
      const before = await reader.version();
      await reader.totals(T0);
      assert.equal(await reader.version(), before);
      await ledger.record(makeCall({ outcome: "timeout" }));
      assert.notEqual(await reader.version(), before);
    });
    await ledger.close();
  });

  it("refuses files that are no ledger, and writes nothing to them", async () => {
    const missing = join(dir.path, "missing.db");
    assert.throws(() => new SqliteDashboardReader(missing), (error: unknown) => error instanceof NotALedgerError && /no such file/.test(error.message));
    const text = join(dir.path, "notes.txt");
    writeFileSync(text, "these are my notes, not a database\n".repeat(200));
    assert.throws(() => checkLedgerFile(text), (error: unknown) => error instanceof NotALedgerError && error.code === "not_a_ledger" && /not a SQLite database/.test(error.message));
    assert.equal(readFileSync(text, "utf8"), "these are my notes, not a database\n".repeat(200));
    const other = join(dir.path, "other-app.db");
    const db = new Database(other);
    db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)");
    db.close();
    const bytes = readFileSync(other);
    assert.throws(() => new SqliteDashboardReader(other), (error: unknown) => error instanceof NotALedgerError && /without the ledger's schema/.test(error.message));
    assert.deepEqual(readFileSync(other), bytes);
  });

  it("fills the strike timeline from the kept strikes when it migrates a version-1 ledger", async () => {
    const path = nextPath();
    const ledger = new Ledger({ store: path, policy: NEVER });
    await ledger.record(makeCall({ outcome: "timeout", at: T0 }));
    await ledger.record(makeCall({ outcome: "crash", at: T0 + 30_000 }));
    await ledger.close();
    // Make it what a corral of schema 1 left behind.
    const raw = new Database(path);
    for (const table of V5_TABLES) raw.exec(`DROP TABLE ${table}`);
    for (const column of V5_COLUMNS) raw.exec(`ALTER TABLE tools DROP COLUMN ${column}`);
    raw.exec("DROP TABLE script_calls; DROP TABLE strike_minutes; ALTER TABLE strikes DROP COLUMN caller");
    raw.pragma("user_version = 1");
    raw.close();
    assert.throws(() => new SqliteDashboardReader(path), (error: unknown) => error instanceof NotALedgerError && error.message.includes(`older than ${SCHEMA_VERSION}`));
    checkLedgerFile(path);
    await new SqliteLedgerStore({ path }).close();
    await withReader(path, async (reader) => {
      const series = await reader.timelines({ to: T0 + MINUTE_MS, bucketMs: MINUTE_MS, buckets: 1, sources: null });
      assert.deepEqual(series.get(null), [2]);
    });
  });

  it("pages a ledger of a million calls over 20,000 sources", async () => {
    const path = nextPath();
    await new SqliteLedgerStore({ path }).close();
    const db = new Database(path);
    const sources = 20_000;
    const version = versionOf("big");
    db.transaction(() => {
      const source = db.prepare("INSERT INTO sources (source, state, last_version) VALUES (?, 'active', ?)");
      const tool = db.prepare("INSERT INTO tools VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?, ?)");
      const strike = db.prepare("INSERT INTO strikes (source, tool, version, call_id, outcome, message, at) VALUES (?, 'run', ?, ?, 'timeout', 'slow', ?)");
      const minute = db.prepare("INSERT INTO strike_minutes (source, minute, n) VALUES (?, ?, ?)");
      for (let i = 0; i < sources; i++) {
        const id = `agent:bulk-${String(i).padStart(5, "0")}`;
        const strikes = i % 10;
        source.run(id, version);
        // 50 calls per source: 1,000,000 in all.
        tool.run(id, "run", 50, strikes, JSON.stringify({ ok: 50 - strikes, timeout: strikes }), 100, 50, 2, 1_000, T0, strikes, version, 50, strikes, strikes);
        for (let s = 0; s < strikes; s++) {
          strike.run(id, version, `${id}-${s}`, T0 - s * MINUTE_MS);
          minute.run(id, T0 - s * MINUTE_MS, 1);
        }
      }
    })();
    db.close();
    await withReader(path, async (reader) => {
      await readMillionCalls(reader, sources, "SQLite");
    });
  });
});
