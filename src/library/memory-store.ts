/**
 * @module src/library/memory-store
 * The library in memory, for a memory ledger: it forgets on exit, and
 * nothing else shares it.
 */
import { noSuchVersion, notFound, planPublish, type Existing, type LibraryStore } from "./store.js";
import type { Change, CurrentTool, PublishDraft, PublishLimits, PublishOutcome, StoredTool, StoredVersion } from "./types.js";

export class MemoryLibraryStore implements LibraryStore {
  readonly #modules = new Map<string, string>();
  readonly #tools = new Map<string, StoredTool>();
  /** Per tool, its versions in order (index = version - 1). */
  readonly #versions = new Map<string, StoredVersion[]>();

  async publish(draft: PublishDraft, limits: PublishLimits): Promise<PublishOutcome> {
    const existing: Existing = { byName: new Map(), live: new Set() };
    for (const tool of this.#tools.values()) if (tool.agent === draft.agent && tool.retiredAt === null) existing.live.add(tool.name);
    for (const { name } of draft.manifests) {
      const tool = this.#tools.get(name);
      const versions = this.#versions.get(name) ?? [];
      const current = versions[(tool?.current ?? 0) - 1];
      if (tool !== undefined && current !== undefined) existing.byName.set(name, { tool, hash: current.hash, manifestJson: current.manifestJson, maxVersion: versions.length });
    }
    const outcome = planPublish(draft, existing, limits);
    if (!outcome.ok) return outcome;
    this.#modules.set(draft.hash, draft.code);
    for (const published of outcome.tools) {
      const json = draft.manifests.find((m) => m.name === published.name)?.json ?? "";
      const versions = this.#versions.get(published.name) ?? [];
      if (!published.unchanged) versions.push({ name: published.name, version: published.version, agent: draft.agent, hash: draft.hash, manifestJson: json, caller: draft.caller, createdAt: draft.at });
      this.#versions.set(published.name, versions);
      this.#tools.set(published.name, { name: published.name, agent: draft.agent, current: published.version, versions: versions.length, retiredAt: null, updatedAt: draft.at });
    }
    return outcome;
  }

  async current(): Promise<CurrentTool[]> {
    return [...this.#tools.values()].flatMap((tool) => {
      const version = this.#versions.get(tool.name)?.[tool.current - 1];
      return tool.retiredAt !== null || version === undefined ? [] : [{ ...tool, hash: version.hash, manifestJson: version.manifestJson }];
    });
  }

  async tools(agent?: string): Promise<StoredTool[]> {
    return [...this.#tools.values()].filter((tool) => agent === undefined || tool.agent === agent).sort((a, b) => a.name.localeCompare(b.name));
  }

  async versions(name: string): Promise<StoredVersion[]> {
    return [...(this.#versions.get(name) ?? [])].reverse();
  }

  async code(hash: string): Promise<string | undefined> {
    return this.#modules.get(hash);
  }

  async setCurrent(name: string, version: number, options: { agent?: string; at: number }): Promise<Change> {
    const tool = this.#owned(name, options.agent);
    if (tool === undefined) return notFound(name, options.agent);
    if (version > tool.versions) return noSuchVersion(name, version, tool.versions);
    const changed = { ...tool, current: version, retiredAt: null, updatedAt: options.at };
    this.#tools.set(name, changed);
    return { ok: true, tool: changed };
  }

  async retire(name: string, options: { agent?: string; at: number }): Promise<Change> {
    const tool = this.#owned(name, options.agent);
    if (tool === undefined) return notFound(name, options.agent);
    const changed = { ...tool, retiredAt: tool.retiredAt ?? options.at, updatedAt: options.at };
    this.#tools.set(name, changed);
    return { ok: true, tool: changed };
  }

  #owned(name: string, agent: string | undefined): StoredTool | undefined {
    const tool = this.#tools.get(name);
    return tool === undefined || (agent !== undefined && tool.agent !== agent) ? undefined : tool;
  }

  async close(): Promise<void> {}
}
