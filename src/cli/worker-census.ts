/**
 * @module src/cli/worker-census
 * Counts the sandbox worker processes that ran during the demo, killed and
 * replaced ones included. The Host API does not report its workers, so this
 * samples this process's children in /proc (Linux) and knows nothing
 * elsewhere: `count` is then undefined and the demo says less.
 */
import { existsSync } from "node:fs";
import { tinypoolChildPids } from "../pool/process-memory.js";

export class WorkerCensus {
  readonly #supported = existsSync("/proc/self/task");
  readonly #before: ReadonlySet<number>;
  readonly #seen = new Set<number>();

  constructor() {
    this.#before = new Set(this.#supported ? tinypoolChildPids() : []);
  }

  /** Call after each step: a worker killed and replaced between two samples is missed. */
  sample(): void {
    if (!this.#supported) return;
    for (const pid of tinypoolChildPids()) if (!this.#before.has(pid)) this.#seen.add(pid);
  }

  get count(): number | undefined {
    return this.#supported ? this.#seen.size : undefined;
  }
}
