/**
 * @module sandbox/worker/isolate-meter
 * What one isolate costs the worker: its CPU time, its heap (used and
 * external), and the resident memory its runs grew that V8 does not count
 * (WebAssembly memories, mostly). The worker's budget counts an isolate at
 * `footprintBytes`. Owned by a ToolIsolate; it holds no resource of its own.
 */
import type IsolatedVM from "isolated-vm-types";

/** Reading heap statistics costs about as much as a small call: a quick call reads them once in this many calls. */
const HEAP_READ_EVERY_CALLS = 16;

/** How the worker tells that an isolate stopped by a limit has stopped: under this share of a core over a sample. */
const QUIET_SAMPLE_MS = 10;
const QUIET_CPU_SHARE = 0.3;

/**
 * The worker's resident memory after its last slow run (process-wide: one
 * worker, one reading). A quick call cannot grow it much and reads nothing.
 */
let lastResidentBytes = process.memoryUsage.rss();

export class IsolateMeter {
  readonly #isolate: IsolatedVM.Isolate;
  #lastCpuNs = 0n;
  #callsSinceHeapRead = 0;
  /** Used heap plus external memory, at the last reading. */
  heapBytes = 0;
  /** Resident growth the heap does not explain, charged to this isolate. Only a collection gives some back (Wasm memory never shrinks). */
  #unseenBytes = 0;

  /** Reads the worker's resident memory now: what grew before this moment is no isolate's (the blank's runtime, say). */
  static residentNow(): void {
    lastResidentBytes = process.memoryUsage.rss();
  }

  constructor(isolate: IsolatedVM.Isolate) {
    this.#isolate = isolate;
  }

  /** The isolate's CPU time; after disposal, the last reading before it. */
  cpuNs(): bigint {
    if (this.#isolate.isDisposed) return this.#lastCpuNs;
    try {
      this.#lastCpuNs = this.#isolate.cpuTime;
    } catch {
      // disposed by its memory limit between the check and the read
    }
    return this.#lastCpuNs;
  }

  /** The heap after a run: read after a run that took a while (it may have grown), else every few calls. */
  heapAfter(wallMs: number): number {
    if (wallMs > 1 || ++this.#callsSinceHeapRead >= HEAP_READ_EVERY_CALLS) {
      this.#callsSinceHeapRead = 0;
      return this.readHeap();
    }
    return this.heapBytes;
  }

  readHeap(): number {
    if (this.#isolate.isDisposed) return this.heapBytes;
    try {
      const stats = this.#isolate.getHeapStatisticsSync();
      this.heapBytes = stats.used_heap_size + stats.externally_allocated_size;
    } catch {
      // disposed between the check and the read
    }
    return this.heapBytes;
  }

  /** After a slow run (or the load): charges the resident growth the heap does not explain to this isolate. */
  noteResidentGrowth(heapBefore: number): void {
    const heapAfter = this.readHeap();
    const resident = process.memoryUsage.rss();
    const grown = resident - lastResidentBytes;
    lastResidentBytes = resident;
    this.#unseenBytes += Math.max(0, grown - Math.max(0, heapAfter - heapBefore));
  }

  /**
   * Runs an idle-time collection of this isolate (nothing else runs in the
   * worker meanwhile): the resident memory it gave back beyond the heap's
   * own shrink was memory charged to it unseen, and is no longer.
   */
  measureCollection(collect: () => void): void {
    const heapBefore = this.readHeap();
    const residentBefore = process.memoryUsage.rss();
    try {
      collect();
    } finally {
      const heapShrink = Math.max(0, heapBefore - this.readHeap());
      const resident = process.memoryUsage.rss();
      lastResidentBytes = resident;
      this.#unseenBytes = Math.max(0, this.#unseenBytes - Math.max(0, residentBefore - resident - heapShrink));
    }
  }

  /** The full size the worker's budget counts this isolate at: heap, external buffers and unseen memory. */
  get footprintBytes(): number {
    return this.heapBytes + this.#unseenBytes;
  }
}

/**
 * Resolves once this process is quiet. An isolate stopped by a limit is
 * disposed, but native work reached from a timer or a continuation (a huge
 * TypedArray sort, a regexp compile) ignores that and runs on in the
 * isolate's thread, where no promise tells when it ends; this process's CPU
 * time does. A call is answered only once the process is quiet, so the
 * host's watchdog, still timing that call, stops what will not stop and
 * charges it, never the call that comes next.
 */
export async function untilQuiet(): Promise<void> {
  for (;;) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, QUIET_SAMPLE_MS));
    const used = process.cpuUsage(before);
    if ((used.user + used.system) / 1000 < QUIET_SAMPLE_MS * QUIET_CPU_SHARE) return;
  }
}
