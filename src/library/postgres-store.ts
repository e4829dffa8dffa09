/**
 * @module src/library/postgres-store
 * The library in the PostgreSQL ledger's schema: every host of a fleet
 * serves the same agent-written tools. A publish or a change is one
 * transaction under an advisory lock per agent (a publish's name check and
 * the agent's tool count are then exact across hosts; a name two agents
 * take at once is decided by the primary key: the second waits, then sees
 * the first's row). Each commit NOTIFYs `corral_library:<schema>` with the
 * writer's id; every other host's listener (the ledger's ChangeListener)
 * hears it within milliseconds and syncs. A listener that reconnects counts
 * as a change, so a NOTIFY missed while it was down is made up for.
 *
 * A server that is down fails the operation with `ledger_unavailable`:
 * nothing is half-written (one transaction), and a publish retried after a
 * connection died under its COMMIT finds its own versions and writes none
 * again (planPublish: same module, same manifest, unchanged).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { CorralError } from "../errors.js";
import { createPool, createTablesBeside, quoteIdent, resolvePostgresOptions, type ResolvedPostgresOptions } from "../ledger/postgres/index.js";
import { connectionConfig, describeError, inTransaction, withClient } from "../ledger/postgres/connection.js";
import { ChangeListener } from "../ledger/postgres/listener.js";
import { currentFromRow, libraryTables, toolFromRow, toolSelect, versionFromRow, versionSelect, type CurrentRow, type ToolRow, type VersionRow } from "./sql.js";
import { noSuchVersion, notFound, planPublish, type Existing, type LibraryStore } from "./store.js";
import type { Change, CurrentTool, PublishDraft, PublishLimits, PublishOutcome, StoredTool, StoredVersion } from "./types.js";

/** A publish refused inside its transaction: thrown so that the transaction rolls back, caught as the answer. */
class Refused extends Error {
  readonly outcome: PublishOutcome;
  constructor(outcome: PublishOutcome) {
    super("refused");
    this.outcome = outcome;
  }
}

export class PostgresLibraryStore implements LibraryStore {
  readonly #options: ResolvedPostgresOptions;
  readonly #pool: pg.Pool;
  readonly #s: string;
  readonly #id = randomUUID();
  readonly #channel: string;
  readonly #watchers = new Set<() => void>();
  #listener: ChangeListener | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;

  /** `url` is the ledger's (its `?schema=` too). */
  readonly #createSchema: boolean;

  /** `createSchema` false: an empty schema is refused (`no_ledger`), as the CLI wants. */
  constructor(url: string, options: { poolSize?: number; schema?: string; createSchema?: boolean } = {}) {
    this.#createSchema = options.createSchema ?? true;
    this.#options = resolvePostgresOptions({ url, poolSize: options.poolSize ?? 2, ...(options.schema === undefined ? {} : { schema: options.schema }) });
    this.#s = `${quoteIdent(this.#options.schema)}.`;
    this.#channel = `corral_library:${this.#options.schema}`;
    this.#pool = createPool(this.#options, "corral-library");
  }

  async #tables(): Promise<void> {
    if (this.#closed) throw new CorralError("ledger_closed", "the tool library was used after close(); create a new host");
    this.#ready ??= createTablesBeside(this.#pool, this.#options.schema, this.#options.where, libraryTables(this.#s, "BIGINT", ""), this.#createSchema).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
  }

  /** `work` in one transaction; a server that cannot be reached is `ledger_unavailable`, naming what was being done. */
  async #write<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      await this.#tables();
      return await inTransaction(this.#pool, work);
    } catch (error) {
      if (error instanceof CorralError || error instanceof Refused) throw error;
      throw describeError(this.#options.where, what, error);
    }
  }

  async #read<R extends pg.QueryResultRow>(what: string, text: string, values: unknown[]): Promise<R[]> {
    try {
      await this.#tables();
      return await withClient(this.#pool, async (client) => (await client.query<R>(text, values)).rows);
    } catch (error) {
      if (error instanceof CorralError) throw error;
      throw describeError(this.#options.where, what, error);
    }
  }

  async #notify(client: pg.PoolClient): Promise<void> {
    await client.query("SELECT pg_notify($1, $2)", [this.#channel, this.#id]);
  }

  async publish(draft: PublishDraft, limits: PublishLimits): Promise<PublishOutcome> {
    const s = this.#s;
    return this.#write("publish a tool", async (client): Promise<PublishOutcome> => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`corral-library:${this.#options.schema}:${draft.agent}`]);
      const names = draft.manifests.map((m) => m.name);
      // A name no row holds yet is claimed first: of two agents taking it at once, the second waits here for the first's commit.
      await client.query(`INSERT INTO ${s}library_tools (name, agent, current, retired_at, updated_at) SELECT n, $2, 1, $3, $3 FROM unnest($1::text[]) AS n ON CONFLICT (name) DO NOTHING`, [names, draft.agent, draft.at]);
      const existing: Existing = { byName: new Map(), live: new Set() };
      const live = await client.query<{ name: string }>(`SELECT name FROM ${s}library_tools WHERE agent = $1 AND retired_at IS NULL AND EXISTS (SELECT 1 FROM ${s}library_versions v WHERE v.name = library_tools.name)`, [draft.agent]);
      for (const row of live.rows) existing.live.add(row.name);
      const known = await client.query<CurrentRow>(`${toolSelect(s, true)} WHERE t.name = ANY($1::text[])`, [names]);
      for (const row of known.rows) existing.byName.set(row.name, { tool: toolFromRow(row), hash: row.hash, manifestJson: row.manifest, maxVersion: Number(row.versions) });
      const owners = await client.query<{ name: string; agent: string }>(`SELECT name, agent FROM ${s}library_tools WHERE name = ANY($1::text[]) AND agent <> $2`, [names, draft.agent]);
      const taken = owners.rows[0];
      // A refusal rolls back the names claimed above.
      if (taken !== undefined) throw new Refused({ ok: false, reason: "name_taken", name: taken.name, owner: `agent:${taken.agent}` });
      const outcome = planPublish(draft, existing, limits);
      if (!outcome.ok) throw new Refused(outcome);
      await client.query(`INSERT INTO ${s}library_modules (hash, code, bytes, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO NOTHING`, [draft.hash, draft.code, Buffer.byteLength(draft.code), draft.at]);
      for (const published of outcome.tools) {
        if (!published.unchanged) {
          const json = draft.manifests.find((m) => m.name === published.name)?.json ?? "";
          await client.query(`INSERT INTO ${s}library_versions (name, version, hash, manifest, caller, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [published.name, published.version, draft.hash, json, draft.caller, draft.at]);
        }
        await client.query(`UPDATE ${s}library_tools SET current = $2, retired_at = NULL, updated_at = $3 WHERE name = $1`, [published.name, published.version, draft.at]);
      }
      await this.#notify(client);
      return outcome;
    }).catch((error: unknown) => {
      if (error instanceof Refused) return error.outcome;
      throw error;
    });
  }

  async current(): Promise<CurrentTool[]> {
    return (await this.#read<CurrentRow>("read the tool library", `${toolSelect(this.#s, true)} WHERE t.retired_at IS NULL ORDER BY t.name`, [])).map(currentFromRow);
  }

  async tools(agent?: string): Promise<StoredTool[]> {
    const rows = agent === undefined
      ? await this.#read<ToolRow>("read the tool library", `${toolSelect(this.#s, false)} WHERE EXISTS (SELECT 1 FROM ${this.#s}library_versions v WHERE v.name = t.name) ORDER BY t.name`, [])
      : await this.#read<ToolRow>("read the tool library", `${toolSelect(this.#s, false)} WHERE t.agent = $1 AND EXISTS (SELECT 1 FROM ${this.#s}library_versions v WHERE v.name = t.name) ORDER BY t.name`, [agent]);
    return rows.map(toolFromRow);
  }

  async versions(name: string): Promise<StoredVersion[]> {
    return (await this.#read<VersionRow>("read a tool's versions", `${versionSelect(this.#s)} WHERE v.name = $1 ORDER BY v.version DESC`, [name])).map(versionFromRow);
  }

  async code(hash: string): Promise<string | undefined> {
    return (await this.#read<{ code: string }>("read a tool's source", `SELECT code FROM ${this.#s}library_modules WHERE hash = $1`, [hash]))[0]?.code;
  }

  async setCurrent(name: string, version: number, options: { agent?: string; at: number }): Promise<Change> {
    return this.#change("roll a tool back", name, options.agent, async (client, tool) => {
      if (version > tool.versions) return noSuchVersion(name, version, tool.versions);
      await client.query(`UPDATE ${this.#s}library_tools SET current = $2, retired_at = NULL, updated_at = $3 WHERE name = $1`, [name, version, options.at]);
      return undefined;
    });
  }

  async retire(name: string, options: { agent?: string; at: number }): Promise<Change> {
    return this.#change("retire a tool", name, options.agent, async (client) => {
      await client.query(`UPDATE ${this.#s}library_tools SET retired_at = coalesce(retired_at, $2), updated_at = $2 WHERE name = $1`, [name, options.at]);
      return undefined;
    });
  }

  async #change(what: string, name: string, agent: string | undefined, apply: (client: pg.PoolClient, tool: StoredTool) => Promise<Change | undefined>): Promise<Change> {
    const read = async (client: pg.PoolClient) => (await client.query<ToolRow>(`${toolSelect(this.#s, false)} WHERE t.name = $1 AND EXISTS (SELECT 1 FROM ${this.#s}library_versions v WHERE v.name = t.name)`, [name])).rows[0];
    return this.#write(what, async (client) => {
      const owner = (await client.query<{ agent: string }>(`SELECT agent FROM ${this.#s}library_tools WHERE name = $1`, [name])).rows[0];
      if (owner !== undefined) await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`corral-library:${this.#options.schema}:${owner.agent}`]);
      const row = await read(client);
      const tool = row === undefined ? undefined : toolFromRow(row);
      if (tool === undefined || (agent !== undefined && tool.agent !== agent)) return notFound(name, agent);
      const refused = await apply(client, tool);
      if (refused !== undefined) return refused;
      await this.#notify(client);
      return { ok: true, tool: toolFromRow((await read(client)) as ToolRow) };
    });
  }

  watch(onChange: () => void): () => void {
    this.#watchers.add(onChange);
    this.#listener ??= new ChangeListener(connectionConfig(this.#options, `corral-library ${this.#id} listen`), this.#channel, this.#id, () => {
      for (const watcher of this.#watchers) watcher();
    }, { retryMs: this.#options.retryMs, timeoutMs: this.#options.connectTimeoutMs });
    return () => this.#watchers.delete(onChange);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#listener?.close();
    await this.#pool.end();
  }
}
