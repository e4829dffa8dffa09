/**
 * @module src/library/sqlite-store
 * The library as tables in the ledger's SQLite file, on a connection of its
 * own (WAL lets the ledger, the CLI and other hosts on the file share it).
 * A publish is one IMMEDIATE transaction: its reads and writes hold the
 * file's write lock, so two processes never both decide on one state.
 * Another process's change is seen by PRAGMA data_version, read every
 * WATCH_MS while someone watches.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { CorralError } from "../errors.js";
import { currentFromRow, libraryTables, toolFromRow, toolSelect, versionFromRow, versionSelect, type CurrentRow, type ToolRow, type VersionRow } from "./sql.js";
import { noSuchVersion, notFound, planPublish, type Existing, type LibraryStore } from "./store.js";
import type { Change, CurrentTool, PublishDraft, PublishLimits, PublishOutcome, StoredTool, StoredVersion } from "./types.js";

/** How often a watched file is asked whether another connection committed. */
export const WATCH_MS = 250;

export class SqliteLibraryStore implements LibraryStore {
  readonly #db: Database.Database;
  #closed = false;

  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.#db = new Database(path, { timeout: options.busyTimeoutMs ?? 5_000 });
    try {
      if (path !== ":memory:") this.#db.pragma("journal_mode = WAL");
      this.#db.exec(libraryTables("", "INTEGER", " WITHOUT ROWID"));
      // Moved by every change of the library, so a watcher tells the ledger's commits (which move data_version too) from the library's.
      this.#db.exec("CREATE TABLE IF NOT EXISTS library_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL); INSERT OR IGNORE INTO library_generation (id, n) VALUES (1, 0);");
    } catch (error) {
      this.#db.close();
      throw new CorralError("ledger_unavailable", `the tool library in ${path} cannot be opened: ${(error as Error).message}`, { path });
    }
  }

  #open(): Database.Database {
    if (this.#closed) throw new CorralError("ledger_closed", "the tool library was used after close(); create a new host");
    return this.#db;
  }

  async publish(draft: PublishDraft, limits: PublishLimits): Promise<PublishOutcome> {
    const db = this.#open();
    return db.transaction((): PublishOutcome => {
      const existing: Existing = { byName: new Map(), live: new Set() };
      for (const row of db.prepare("SELECT name FROM library_tools WHERE agent = ? AND retired_at IS NULL").all(draft.agent) as { name: string }[]) existing.live.add(row.name);
      const read = db.prepare(`${toolSelect("", true)} WHERE t.name = ?`);
      for (const { name } of draft.manifests) {
        const row = read.get(name) as CurrentRow | undefined;
        if (row !== undefined) existing.byName.set(name, { tool: toolFromRow(row), hash: row.hash, manifestJson: row.manifest, maxVersion: Number(row.versions) });
      }
      const outcome = planPublish(draft, existing, limits);
      if (!outcome.ok) return outcome;
      db.prepare("INSERT INTO library_modules (hash, code, bytes, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING").run(draft.hash, draft.code, Buffer.byteLength(draft.code), draft.at);
      const version = db.prepare("INSERT INTO library_versions (name, version, hash, manifest, caller, created_at) VALUES (?, ?, ?, ?, ?, ?)");
      const tool = db.prepare(
        "INSERT INTO library_tools (name, agent, current, retired_at, updated_at) VALUES (?, ?, ?, NULL, ?) ON CONFLICT (name) DO UPDATE SET current = excluded.current, retired_at = NULL, updated_at = excluded.updated_at",
      );
      for (const published of outcome.tools) {
        if (!published.unchanged) version.run(published.name, published.version, draft.hash, draft.manifests.find((m) => m.name === published.name)?.json ?? "", draft.caller, draft.at);
        tool.run(published.name, draft.agent, published.version, draft.at);
      }
      this.#bump();
      return outcome;
    }).immediate();
  }

  async current(): Promise<CurrentTool[]> {
    return (this.#open().prepare(`${toolSelect("", true)} WHERE t.retired_at IS NULL ORDER BY t.name`).all() as CurrentRow[]).map(currentFromRow);
  }

  async tools(agent?: string): Promise<StoredTool[]> {
    const db = this.#open();
    const rows = agent === undefined ? db.prepare(`${toolSelect("", false)} ORDER BY t.name`).all() : db.prepare(`${toolSelect("", false)} WHERE t.agent = ? ORDER BY t.name`).all(agent);
    return (rows as ToolRow[]).map(toolFromRow);
  }

  async versions(name: string): Promise<StoredVersion[]> {
    return (this.#open().prepare(`${versionSelect("")} WHERE v.name = ? ORDER BY v.version DESC`).all(name) as VersionRow[]).map(versionFromRow);
  }

  async code(hash: string): Promise<string | undefined> {
    return (this.#open().prepare("SELECT code FROM library_modules WHERE hash = ?").get(hash) as { code: string } | undefined)?.code;
  }

  async setCurrent(name: string, version: number, options: { agent?: string; at: number }): Promise<Change> {
    return this.#change(name, options.agent, (tool) => {
      if (version > tool.versions) return noSuchVersion(name, version, tool.versions);
      this.#db.prepare("UPDATE library_tools SET current = ?, retired_at = NULL, updated_at = ? WHERE name = ?").run(version, options.at, name);
      return undefined;
    });
  }

  async retire(name: string, options: { agent?: string; at: number }): Promise<Change> {
    return this.#change(name, options.agent, () => {
      this.#db.prepare("UPDATE library_tools SET retired_at = coalesce(retired_at, ?), updated_at = ? WHERE name = ?").run(options.at, options.at, name);
      return undefined;
    });
  }

  /** Reads the tool, lets `apply` refuse or write, and answers the tool as it is after, in one transaction. */
  #change(name: string, agent: string | undefined, apply: (tool: StoredTool) => Change | undefined): Change {
    const db = this.#open();
    const read = () => db.prepare(`${toolSelect("", false)} WHERE t.name = ?`).get(name) as ToolRow | undefined;
    return db.transaction((): Change => {
      const row = read();
      const tool = row === undefined ? undefined : toolFromRow(row);
      if (tool === undefined || (agent !== undefined && tool.agent !== agent)) return notFound(name, agent);
      const refused = apply(tool);
      if (refused !== undefined) return refused;
      this.#bump();
      return { ok: true, tool: toolFromRow(read() as ToolRow) };
    }).immediate();
  }

  #bump(): void {
    this.#db.prepare("UPDATE library_generation SET n = n + 1 WHERE id = 1").run();
  }

  #generation(): number {
    return (this.#db.prepare("SELECT n FROM library_generation WHERE id = 1").get() as { n: number }).n;
  }

  watch(onChange: () => void): () => void {
    let version = this.#db.pragma("data_version", { simple: true });
    let generation = this.#generation();
    const timer = setInterval(() => {
      if (this.#closed) return;
      const now = this.#db.pragma("data_version", { simple: true });
      if (now === version) return;
      version = now;
      const moved = this.#generation();
      if (moved === generation) return;
      generation = moved;
      onChange();
    }, WATCH_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }
}
