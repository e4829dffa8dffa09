/**
 * @module src/capabilities/sqlite-capability-store
 * The capability store as tables in the ledger's SQLite file, on a
 * connection of its own (WAL lets it share the file with the ledger's
 * connection and with the CLI). The tables are created if missing; they are
 * independent of the ledger's schema version, so a ledger file from before
 * them simply gains them.
 */
import Database from "better-sqlite3";
import { counterFromRow, entryBytes, LATEST_USES_KEPT, useFromRow, type CapabilityCounter, type CapabilityCounterRow, type CapabilityStore, type CapabilityUse, type CapabilityUseRow, type StateLimits, type StateUsage } from "./capability-store.js";
import { CorralError } from "../errors.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS capability_state (
  source     TEXT NOT NULL,
  key        TEXT NOT NULL,
  value      TEXT NOT NULL,     -- JSON text
  bytes      INTEGER NOT NULL,  -- key + value, UTF-8
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (source, key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS capability_counters (
  source      TEXT NOT NULL,
  tool        TEXT NOT NULL,
  effect      TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  uses        INTEGER NOT NULL,
  bytes       INTEGER NOT NULL,
  last_target TEXT NOT NULL,
  last_at     INTEGER NOT NULL,
  PRIMARY KEY (source, tool, effect, outcome)
) WITHOUT ROWID;

-- The latest uses of each source with their targets (never bodies); older ones are pruned.
CREATE TABLE IF NOT EXISTS capability_uses (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  source    TEXT NOT NULL,
  tool      TEXT NOT NULL,
  call_id   TEXT NOT NULL,
  effect    TEXT NOT NULL,
  operation TEXT NOT NULL,
  target    TEXT NOT NULL,
  bytes     INTEGER NOT NULL,
  outcome   TEXT NOT NULL,
  message   TEXT,
  at        INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS capability_uses_by_source ON capability_uses (source, id);
`;

export class SqliteCapabilityStore implements CapabilityStore {
  readonly #db: Database.Database;
  readonly #statements;

  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    this.#db = new Database(path, { timeout: options.busyTimeoutMs ?? 5_000 });
    try {
      if (path !== ":memory:") this.#db.pragma("journal_mode = WAL");
      this.#db.exec(SCHEMA);
    } catch (error) {
      this.#db.close();
      throw new CorralError("ledger_unavailable", `the capability tables in ${path} could not be opened: ${(error as Error).message}`, { path });
    }
    const db = this.#db;
    this.#statements = {
      get: db.prepare<[string, string], { value: string }>("SELECT value FROM capability_state WHERE source = ? AND key = ?"),
      list: db.prepare<[{ source: string; prefix: string; limit: number }], { key: string }>(
        "SELECT key FROM capability_state WHERE source = @source AND key >= @prefix AND substr(key, 1, length(@prefix)) = @prefix ORDER BY key LIMIT @limit",
      ),
      usage: db.prepare<[string], { keys: number; bytes: number | null }>("SELECT count(*) AS keys, sum(bytes) AS bytes FROM capability_state WHERE source = ?"),
      entryBytes: db.prepare<[string, string], { bytes: number }>("SELECT bytes FROM capability_state WHERE source = ? AND key = ?"),
      put: db.prepare("INSERT INTO capability_state (source, key, value, bytes, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (source, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes, updated_at = excluded.updated_at"),
      delete: db.prepare("DELETE FROM capability_state WHERE source = ? AND key = ?"),
      count: db.prepare(
        `INSERT INTO capability_counters (source, tool, effect, outcome, uses, bytes, last_target, last_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?)
         ON CONFLICT (source, tool, effect, outcome) DO UPDATE SET uses = uses + 1, bytes = bytes + excluded.bytes, last_target = excluded.last_target, last_at = excluded.last_at`,
      ),
      addUse: db.prepare("INSERT INTO capability_uses (source, tool, call_id, effect, operation, target, bytes, outcome, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
      prune: db.prepare(`DELETE FROM capability_uses WHERE source = ? AND id <= (SELECT id FROM capability_uses WHERE source = ? ORDER BY id DESC LIMIT 1 OFFSET ${LATEST_USES_KEPT})`),
      counters: db.prepare<[string], CapabilityCounterRow>(
        "SELECT tool, effect, outcome, uses, bytes, last_target, last_at FROM capability_counters WHERE source = ? ORDER BY tool, effect, outcome",
      ),
      latest: db.prepare<[string, number], CapabilityUseRow>("SELECT * FROM capability_uses WHERE source = ? ORDER BY id DESC LIMIT ?"),
    };
  }

  get alive(): boolean {
    return this.#db.open;
  }

  #check(): void {
    if (!this.#db.open) throw new CorralError("ledger_closed", "the capability store was used after close(); create a new host");
  }

  async stateGet(source: string, key: string): Promise<string | undefined> {
    this.#check();
    return this.#statements.get.get(source, key)?.value;
  }

  async stateList(source: string, prefix: string, limit: number): Promise<string[]> {
    this.#check();
    return this.#statements.list.all({ source, prefix, limit }).map((row) => row.key);
  }

  async stateSet(source: string, key: string, json: string, limits: StateLimits): Promise<{ ok: true } | { ok: false; usage: StateUsage }> {
    this.#check();
    const bytes = entryBytes(key, json);
    // The quota is checked and the value written in one write transaction, so two hosts cannot both fit into the last of it.
    return this.#db
      .transaction((): { ok: true } | { ok: false; usage: StateUsage } => {
        const usage = this.#statements.usage.get(source) ?? { keys: 0, bytes: 0 };
        const previous = this.#statements.entryBytes.get(source, key);
        const after = { keys: usage.keys + (previous === undefined ? 1 : 0), bytes: (usage.bytes ?? 0) - (previous?.bytes ?? 0) + bytes };
        if (after.keys > limits.maxKeys || after.bytes > limits.quotaBytes) return { ok: false, usage: after };
        this.#statements.put.run(source, key, json, bytes, Date.now());
        return { ok: true };
      })
      .immediate();
  }

  async stateDelete(source: string, key: string): Promise<boolean> {
    this.#check();
    return this.#statements.delete.run(source, key).changes > 0;
  }

  async stateUsage(source: string): Promise<StateUsage> {
    this.#check();
    const usage = this.#statements.usage.get(source);
    return { keys: usage?.keys ?? 0, bytes: usage?.bytes ?? 0 };
  }

  async recordUse(use: CapabilityUse): Promise<void> {
    this.#check();
    this.#db.transaction(() => {
      this.#statements.count.run(use.source, use.tool, use.effect, use.outcome, use.bytes, use.target, use.at);
      this.#statements.addUse.run(use.source, use.tool, use.callId, use.effect, use.operation, use.target, use.bytes, use.outcome, use.message ?? null, use.at);
      this.#statements.prune.run(use.source, use.source);
    })();
  }

  async readUses(source: string, latest: number): Promise<{ counters: CapabilityCounter[]; latest: CapabilityUse[] }> {
    this.#check();
    return { counters: this.#statements.counters.all(source).map(counterFromRow), latest: this.#statements.latest.all(source, latest).map(useFromRow) };
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
