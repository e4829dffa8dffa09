/**
 * @module sandbox/worker/isolate-cache
 * Warm tool isolates of one worker, least recently used first, bounded by
 * count and by total heap. The cache owns its entries: it disposes what it
 * evicts, and an entry that died (limit hit, catastrophic error) is dropped,
 * never reused. It remembers the keys it dropped until the worker reports
 * them to the host (`takeDropped`), so the host's routing can follow.
 */
import type { ToolIsolate } from "./tool-isolate.js";

export type IsolateCacheOptions = {
  maxIsolates: number;
  maxHeapBytes: number;
  /** Bytes the worker keeps outside the cache (the blank isolate kept ready), counted against maxHeapBytes too. */
  reservedBytes?: () => number;
};

export class IsolateCache {
  readonly #entries = new Map<string, ToolIsolate>();
  readonly #options: IsolateCacheOptions;
  /** Keys dropped since the last `takeDropped`, less those kept again since. */
  readonly #dropped = new Set<string>();

  constructor(options: IsolateCacheOptions) {
    this.#options = options;
  }

  /** A live isolate for `key`, marked most recently used; or undefined. */
  take(key: string): ToolIsolate | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (!entry.alive) {
      this.#dropped.add(key);
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry;
  }

  /** The live isolate for `key`, if any, without touching its place in the order. */
  peek(key: string): ToolIsolate | undefined {
    const entry = this.#entries.get(key);
    return entry?.alive === true ? entry : undefined;
  }

  /**
   * Idle work: the first isolate that wants a collection (never collected
   * since its load, or grown since; least recently used first, then `also`,
   * the blank kept beside the cache) gets one. Answers whether one did.
   */
  collectOne(also?: ToolIsolate): boolean {
    let chosen: ToolIsolate | undefined;
    for (const entry of this.#entries.values()) {
      if (entry.wantsCollection) {
        chosen = entry;
        break;
      }
    }
    if (chosen === undefined && also?.wantsCollection === true) chosen = also;
    chosen?.collectGarbage();
    return chosen !== undefined;
  }

  /** Forgets the isolate under `key` without disposing it (it is about to be kept under another key); the key counts as dropped. */
  release(key: string): void {
    if (this.#entries.delete(key)) this.#dropped.add(key);
  }

  /** Keeps `entry` (if still alive) and evicts until the bounds hold again. */
  keep(key: string, entry: ToolIsolate): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined && previous !== entry) previous.dispose();
    this.#entries.delete(key);
    if (!entry.alive) {
      this.#dropped.add(key);
      return;
    }
    this.#dropped.delete(key);
    this.#entries.set(key, entry);
    this.#evict(key);
  }

  #evict(keepKey: string): void {
    // Each kept isolate at its full size: heap, external buffers and the
    // memory V8 does not count (ToolIsolate.footprintBytes).
    let heap = this.footprintBytes;
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#options.maxIsolates && heap <= this.#options.maxHeapBytes) break;
      if (key === keepKey) continue;
      heap -= entry.footprintBytes;
      entry.dispose();
      this.#entries.delete(key);
      this.#dropped.add(key);
    }
  }

  /** The keys dropped since the last call, and forgets them. */
  takeDropped(): string[] {
    const dropped = [...this.#dropped];
    this.#dropped.clear();
    return dropped;
  }

  /** The kept isolates' full size together, and what the worker reserves beside them (the budget's measure). */
  get footprintBytes(): number {
    let bytes = this.#options.reservedBytes?.() ?? 0;
    for (const entry of this.#entries.values()) bytes += entry.footprintBytes;
    return bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    for (const entry of this.#entries.values()) entry.dispose();
    this.#entries.clear();
  }
}
