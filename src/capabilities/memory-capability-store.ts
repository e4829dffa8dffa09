/**
 * @module src/capabilities/memory-capability-store
 * The capability store in memory, for a memory ledger and for tests.
 *
 * Atomicity: a quota check and its write happen in one synchronous stretch
 * (no await between reading the source's usage and keeping the value), so
 * concurrent `stateSet` calls, of one tool or of many tools of a source,
 * are judged one after another on what the others kept, as the SQL stores'
 * transactions judge them.
 */
import { entryBytes, LATEST_USES_KEPT, type CapabilityCounter, type CapabilityStore, type CapabilityUse, type StateLimits, type StateUsage } from "./capability-store.js";
import { CorralError } from "../errors.js";

export class MemoryCapabilityStore implements CapabilityStore {
  readonly #state = new Map<string, Map<string, string>>();
  readonly #counters = new Map<string, Map<string, CapabilityCounter>>();
  readonly #latest = new Map<string, CapabilityUse[]>();
  #alive = true;

  get alive(): boolean {
    return this.#alive;
  }

  #check(): void {
    if (!this.#alive) throw new CorralError("ledger_closed", "the capability store was used after close(); create a new host");
  }

  #entries(source: string): Map<string, string> {
    let entries = this.#state.get(source);
    if (entries === undefined) this.#state.set(source, (entries = new Map()));
    return entries;
  }

  async stateGet(source: string, key: string): Promise<string | undefined> {
    this.#check();
    return this.#state.get(source)?.get(key);
  }

  async stateList(source: string, prefix: string, limit: number): Promise<string[]> {
    this.#check();
    return [...(this.#state.get(source)?.keys() ?? [])].filter((key) => key.startsWith(prefix)).sort().slice(0, limit);
  }

  async stateSet(source: string, key: string, json: string, limits: StateLimits): Promise<{ ok: true } | { ok: false; usage: StateUsage }> {
    this.#check();
    const entries = this.#entries(source);
    // Read and written without yielding: nothing else runs between the check and the write.
    const usage = usageOf(entries);
    const previous = entries.get(key);
    const after = {
      keys: usage.keys + (previous === undefined ? 1 : 0),
      bytes: usage.bytes - (previous === undefined ? 0 : entryBytes(key, previous)) + entryBytes(key, json),
    };
    if (after.keys > limits.maxKeys || after.bytes > limits.quotaBytes) return { ok: false, usage: after };
    entries.set(key, json);
    return { ok: true };
  }

  async stateDelete(source: string, key: string): Promise<boolean> {
    this.#check();
    return this.#state.get(source)?.delete(key) ?? false;
  }

  async stateUsage(source: string): Promise<StateUsage> {
    this.#check();
    return usageOf(this.#state.get(source) ?? new Map<string, string>());
  }

  async recordUse(use: CapabilityUse): Promise<void> {
    this.#check();
    let counters = this.#counters.get(use.source);
    if (counters === undefined) this.#counters.set(use.source, (counters = new Map()));
    const id = `${use.tool}\u0000${use.effect}\u0000${use.outcome}`;
    const counter = counters.get(id) ?? { tool: use.tool, effect: use.effect, outcome: use.outcome, uses: 0, bytes: 0, lastTarget: "", lastAt: 0 };
    counter.uses += 1;
    counter.bytes += use.bytes;
    counter.lastTarget = use.target;
    counter.lastAt = use.at;
    counters.set(id, counter);
    const latest = this.#latest.get(use.source) ?? [];
    latest.unshift({ ...use });
    if (latest.length > LATEST_USES_KEPT) latest.length = LATEST_USES_KEPT;
    this.#latest.set(use.source, latest);
  }

  async readUses(source: string, latest: number): Promise<{ counters: CapabilityCounter[]; latest: CapabilityUse[] }> {
    this.#check();
    const counters = [...(this.#counters.get(source)?.values() ?? [])].map((counter) => ({ ...counter }));
    counters.sort((a, b) => (a.tool + a.effect + a.outcome < b.tool + b.effect + b.outcome ? -1 : 1));
    return { counters, latest: (this.#latest.get(source) ?? []).slice(0, latest).map((use) => ({ ...use })) };
  }

  async close(): Promise<void> {
    this.#alive = false;
  }
}

function usageOf(entries: Map<string, string>): StateUsage {
  let bytes = 0;
  for (const [key, json] of entries) bytes += entryBytes(key, json);
  return { keys: entries.size, bytes };
}
