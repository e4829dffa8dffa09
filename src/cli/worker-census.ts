/**
 * @module src/cli/worker-census
 * Counts the sandbox worker processes that ran during the demo, killed and
 * replaced ones included. The Host API does not report its workers, so this
 * samples this process's children in /proc (Linux) and knows nothing
 * elsewhere: `count` is then undefined and the demo says less.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** tinypool starts every worker through its own entry script; nothing else here does. */
const WORKER_MARKER = "tinypool";

export class WorkerCensus {
  readonly #supported = existsSync("/proc/self/task");
  readonly #before: ReadonlySet<number>;
  readonly #seen = new Set<number>();

  constructor() {
    this.#before = new Set(this.#supported ? workerPids() : []);
  }

  /** Call after each step: a worker killed and replaced between two samples is missed. */
  sample(): void {
    if (!this.#supported) return;
    for (const pid of workerPids()) if (!this.#before.has(pid)) this.#seen.add(pid);
  }

  get count(): number | undefined {
    return this.#supported ? this.#seen.size : undefined;
  }
}

function workerPids(): number[] {
  const pids: number[] = [];
  for (const task of safeList("/proc/self/task")) {
    const children = safeRead(`/proc/self/task/${task}/children`).trim();
    if (children !== "") pids.push(...children.split(/\s+/).map(Number));
  }
  return pids.filter((pid) => safeRead(`/proc/${pid}/cmdline`).includes(WORKER_MARKER));
}

// A process can end between listing and reading: absent is an answer, not an error.
function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
