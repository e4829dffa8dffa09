/**
 * @module src/library/store
 * LibraryStore: where the tools agents write are kept, beside the ledger (a
 * table set in its SQLite file or PostgreSQL schema, or memory for a memory
 * ledger). Three implementations pass one suite (store.case.ts). Every
 * publish is one transaction that decides with planPublish() on what it
 * read under the agent's lock, so two hosts publishing at once never both
 * take a name nor both fit into an agent's last free slot.
 */
import type { Change, CurrentTool, PublishDraft, PublishLimits, PublishOutcome, Published, StoredTool, StoredVersion } from "./types.js";

export interface LibraryStore {
  /** Writes the module and a new version of each tool it defines (none for a tool whose current version is this very module and manifest). */
  publish(draft: PublishDraft, limits: PublishLimits): Promise<PublishOutcome>;
  /** Every tool that is not retired, with its current version: what hosts serve. */
  current(): Promise<CurrentTool[]>;
  /** The library's tools, retired ones too; one agent's when given. */
  tools(agent?: string): Promise<StoredTool[]>;
  /** One tool's versions, newest first. */
  versions(name: string): Promise<StoredVersion[]>;
  /** A module's source text, as stored (its hash is checked by the reader). */
  code(hash: string): Promise<string | undefined>;
  /** Makes `version` current again (and the tool live, if retired). `agent`: refused unless it owns the tool. */
  setCurrent(name: string, version: number, options: { agent?: string; at: number }): Promise<Change>;
  /** No longer offered nor callable; its versions and record stay. */
  retire(name: string, options: { agent?: string; at: number }): Promise<Change>;
  /**
   * Told when another host (or the CLI) changed the library: a PostgreSQL
   * NOTIFY, a SQLite file's data_version. A memory store has no one else.
   * Returns the unsubscribe.
   */
  watch?(onChange: () => void): () => void;
  close(): Promise<void>;
}

/** What a store read, under the agent's lock, about the names a publish touches. */
export type Existing = {
  /** Per name in the draft: the stored tool, its current version's hash and manifest, and its highest version. */
  byName: Map<string, { tool: StoredTool; hash: string; manifestJson: string; maxVersion: number }>;
  /** The agent's tools that are not retired, by name. */
  live: Set<string>;
};

/** The decision of a publish, from what was read: refused, or the versions to write. */
export function planPublish(draft: PublishDraft, existing: Existing, limits: PublishLimits): PublishOutcome {
  const tools: Published[] = [];
  for (const { name, json } of draft.manifests) {
    const known = existing.byName.get(name);
    if (known !== undefined && known.tool.agent !== draft.agent) return { ok: false, reason: "name_taken", name, owner: `agent:${known.tool.agent}` };
    const unchanged = known !== undefined && known.tool.retiredAt === null && known.hash === draft.hash && known.manifestJson === json;
    tools.push({ name, version: unchanged ? known.tool.current : (known?.maxVersion ?? 0) + 1, unchanged });
  }
  const live = new Set(existing.live);
  for (const { name } of draft.manifests) live.add(name);
  if (live.size > limits.maxTools) return { ok: false, reason: "too_many_tools", have: live.size, max: limits.maxTools };
  return { ok: true, tools };
}

/** The refusal of a change to a tool that is not there (or not the agent's). */
export function notFound(name: string, agent: string | undefined): Change {
  return { ok: false, reason: "not_found", message: agent === undefined ? `the library has no tool named "${name}"` : `agent:${agent} has no tool named "${name}" in the library` };
}

export function noSuchVersion(name: string, version: number, versions: number): Change {
  return { ok: false, reason: "no_such_version", message: `"${name}" has no version ${version} (it has versions 1 to ${versions})` };
}
