/**
 * @module src/ledger/memory/store
 * MemoryLedgerStore: a LedgerStore in a Map, for a host run with
 * `ledger: false` and for tests. Nothing survives the process. Each write
 * decides first and mutates after, so a throw leaves the record as it was,
 * like a rolled-back transaction. Reads hand out copies, never the maps' own
 * objects.
 */
import { LedgerClosedError } from "../errors.js";
import { byTrouble, scriptCountsOf, toScriptToolRows, type ScriptCallCount, type ScriptCallerRow, type StoredScriptCallers, type StoredScriptTools } from "../script-calls.js";
import type { Applied, Decide, LedgerStore, RecordOptions, StoredSource, StoredSourceDetail, StoredTool } from "../store.js";
import { initialState, type Transition } from "../transitions.js";
import { ERRORS_KEPT_PER_TOOL, emptyTotals, isStrike, type CallRecord, type LedgerEvent, type LoadRecord, type SourceState, type StrikeEntry, type ToolVersionCounts } from "../types.js";

/** A tool as kept here: its counts per version by version, made into StoredTool's list when read. */
type ToolEntry = Omit<StoredTool, "versions"> & { versions: Map<string, ToolVersionCounts> };

type SourceEntry = {
  state: SourceState;
  /** Version → when the source was first seen at it. */
  versions: Map<string, number>;
  lastVersion: string | null;
  tools: Map<string, ToolEntry>;
  /** Newest first, at most the last keepStrikes. */
  strikes: StrikeEntry[];
  /** Oldest first: an audit log only grows. */
  events: LedgerEvent[];
};

export class MemoryLedgerStore implements LedgerStore {
  readonly #sources = new Map<string, SourceEntry>();
  /** Script counters by JSON of [script, source, tool, outcome]. */
  readonly #scriptCalls = new Map<string, ScriptCallCount>();
  #closed = false;

  get alive(): boolean {
    return !this.#closed;
  }

  #assertAlive(): void {
    if (this.#closed) throw new LedgerClosedError("the memory ledger store");
  }

  async recordCall(call: CallRecord, options: RecordOptions): Promise<Applied> {
    this.#assertAlive();
    const entry = this.#sources.get(call.source);
    const state = entry?.state ?? initialState(call.source);
    const strike = isStrike(call.outcome);
    const kept = entry?.strikes ?? [];
    const strikes = strike
      ? [{ at: call.at, tool: call.tool, version: call.version, callId: call.callId, outcome: call.outcome, message: call.message ?? "", ...(call.caller !== undefined ? { caller: call.caller } : {}) }, ...kept].slice(0, options.keepStrikes)
      : kept;
    const applied = options.decide(state, strike ? strikes.map((s) => s.at) : []);

    const target = entry ?? this.#create(call.source);
    target.strikes = strikes;
    if (!target.versions.has(call.version)) target.versions.set(call.version, call.at);
    target.lastVersion = call.version;
    const tool = target.tools.get(call.tool) ?? newTool(call.tool);
    const totals = tool.totals;
    totals.calls += 1;
    totals.outcomes[call.outcome] += 1;
    totals.totalWallMs += call.wallMs;
    totals.totalCpuMs += call.cpuMs;
    totals.lastWallMs = call.wallMs;
    totals.maxHeapBytes = Math.max(totals.maxHeapBytes, call.heapBytes);
    totals.lastCallAt = call.at;
    if (strike) {
      totals.strikes += 1;
      tool.lastStrike = { at: call.at, outcome: call.outcome, message: call.message ?? "" };
    }
    const atVersion = tool.versions.get(call.version) ?? { version: call.version, calls: 0, errors: 0, strikes: 0, firstSeenAt: null };
    atVersion.calls += 1;
    if (call.outcome !== "ok") {
      atVersion.errors += 1;
      const error = { at: call.at, version: call.version, callId: call.callId, outcome: call.outcome, message: call.message ?? "", ...(call.caller !== undefined ? { caller: call.caller } : {}) };
      tool.lastErrors = [error, ...tool.lastErrors].slice(0, ERRORS_KEPT_PER_TOOL);
    }
    if (strike) atVersion.strikes += 1;
    tool.versions.set(call.version, atVersion);
    target.tools.set(call.tool, tool);
    this.#countScriptCalls(call);
    this.#apply(target, applied);
    return { state: structuredClone(target.state), applied: structuredClone(applied) };
  }

  async recordLoad(load: LoadRecord): Promise<void> {
    this.#assertAlive();
    const target = this.#sources.get(load.source) ?? this.#create(load.source);
    if (!target.versions.has(load.version)) target.versions.set(load.version, load.at);
    target.lastVersion ??= load.version;
    for (const tool of load.tools) if (!target.tools.has(tool)) target.tools.set(tool, newTool(tool));
  }

  /** Nobody else writes to this memory: it never changes elsewhere. */
  changesElsewhere(): number {
    return 0;
  }

  async readState(source: string): Promise<SourceState> {
    this.#assertAlive();
    return structuredClone(this.#sources.get(source)?.state ?? initialState(source));
  }

  async transition(source: string, decide: Decide): Promise<Applied> {
    this.#assertAlive();
    const entry = this.#sources.get(source);
    const applied = decide(entry?.state ?? initialState(source));
    if (applied === null) return { state: structuredClone(entry?.state ?? initialState(source)), applied: null };
    const target = entry ?? this.#create(source);
    this.#apply(target, applied);
    return { state: structuredClone(target.state), applied: structuredClone(applied) };
  }

  async listSources(): Promise<StoredSource[]> {
    this.#assertAlive();
    return [...this.#sources.values()].map((entry) => structuredClone(stored(entry)));
  }

  async readSource(source: string, limits: { events: number; strikes: number }): Promise<StoredSourceDetail | null> {
    this.#assertAlive();
    const entry = this.#sources.get(source);
    if (entry === undefined) return null;
    const events = entry.events.slice(-limits.events).reverse();
    return structuredClone({ ...stored(entry), events: limits.events === 0 ? [] : events, strikes: entry.strikes.slice(0, limits.strikes) });
  }

  #countScriptCalls(call: CallRecord): void {
    for (const count of scriptCountsOf([{ call }])) this.#addScriptCount(count);
  }

  #addScriptCount(count: ScriptCallCount): void {
    const key = JSON.stringify([count.script, count.source, count.tool, count.outcome]);
    const kept = this.#scriptCalls.get(key);
    if (kept === undefined) this.#scriptCalls.set(key, { ...count });
    else Object.assign(kept, { calls: kept.calls + count.calls, strikes: kept.strikes + count.strikes, lastAt: Math.max(kept.lastAt, count.lastAt) });
  }

  async readScriptTools(script: string, limit: number): Promise<StoredScriptTools> {
    this.#assertAlive();
    const counts = [...this.#scriptCalls.values()].filter((count) => count.script === script);
    const rows = toScriptToolRows(counts);
    const shown = new Set(rows.slice(0, limit).map((row) => JSON.stringify([row.source, row.tool])));
    return structuredClone({ total: rows.length, counts: counts.filter((count) => shown.has(JSON.stringify([count.source, count.tool]))) });
  }

  async readScriptCallers(source: string, limit: number): Promise<StoredScriptCallers> {
    this.#assertAlive();
    const byScript = new Map<string, ScriptCallerRow>();
    for (const count of this.#scriptCalls.values()) {
      if (count.source !== source) continue;
      const row = byScript.get(count.script) ?? { script: count.script, calls: 0, strikes: 0, lastAt: count.lastAt };
      row.calls += count.calls;
      row.strikes += count.strikes;
      row.lastAt = Math.max(row.lastAt, count.lastAt);
      byScript.set(count.script, row);
    }
    const rows = [...byScript.values()].sort((a, b) => byTrouble(a, b, a.script, b.script));
    return { total: rows.length, rows: rows.slice(0, limit) };
  }

  #create(source: string): SourceEntry {
    const entry: SourceEntry = { state: initialState(source), versions: new Map(), lastVersion: null, tools: new Map(), strikes: [], events: [] };
    this.#sources.set(source, entry);
    return entry;
  }

  #apply(entry: SourceEntry, applied: Transition | null): void {
    if (applied === null) return;
    entry.state = structuredClone(applied.state);
    entry.events.push(...structuredClone(applied.events));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sources.clear();
    this.#scriptCalls.clear();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function newTool(tool: string): ToolEntry {
  return { tool, totals: emptyTotals(), lastStrike: null, versions: new Map(), lastErrors: [] };
}

function stored(entry: SourceEntry): StoredSource {
  return {
    state: entry.state,
    versions: entry.versions.size,
    lastVersion: entry.lastVersion,
    lastStrike: entry.strikes[0] ?? null,
    tools: [...entry.tools.values()].map((tool) => ({
      ...tool,
      versions: [...tool.versions.values()].map((counts) => ({ ...counts, firstSeenAt: entry.versions.get(counts.version) ?? null })),
    })),
  };
}
