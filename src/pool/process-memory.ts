/**
 * @module src/pool/process-memory
 * Reads other processes from /proc without their help: a worker's resident
 * memory (the RSS watch), whether a pid is a sandbox worker of this process
 * (a worker's `ready` names its pid), and which children of this process are
 * sandbox workers (the tests' and the bench's check that none outlives its
 * host). Where /proc is missing (not Linux), all answer nothing: the RSS
 * watch is off, and the isolate's own memory limit still holds there.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

const PAGE_BYTES = 4096;

/** tinypool starts every worker through its own entry script, named in the command line. */
const WORKER_MARKER = "tinypool";

/** `pid`'s resident memory, read once (a watch that reads often keeps a reader open: openResident). */
export function residentBytes(pid: number): number | undefined {
  const reader = openResident(pid);
  const bytes = reader?.read();
  reader?.close();
  return bytes;
}

/** One process's resident memory, read again and again through one open file (a read is about 8 µs; opening it each time, about 70). */
export type ResidentReader = { read(): number | undefined; close(): void };

/** A reader of `pid`'s resident memory, or undefined where /proc is missing. A read after the process ended answers undefined. */
export function openResident(pid: number): ResidentReader | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/statm`, "r");
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(128);
  return {
    read() {
      if (fd === undefined) return undefined;
      try {
        // statm is regenerated at each read from offset 0: "size resident shared ...", in pages.
        const pages = Number(buffer.toString("latin1", 0, readSync(fd, buffer, 0, buffer.length, 0)).split(" ")[1]);
        return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
      } catch {
        return undefined;
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/**
 * Pids of this process's live children whose command line names tinypool's
 * entry: every sandbox worker of every host in this process (and any other
 * tinypool child process). Zombies (exited, not yet reaped) are left out.
 */
export function tinypoolChildPids(): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return [];
  }
  // A thread or a child can end between the listing and the reads below:
  // gone is an answer, not an error.
  const pids: number[] = [];
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/self/task/${task}/children`, "utf8").trim();
      if (text !== "") pids.push(...text.split(/\s+/).map(Number));
    } catch {}
  }
  return pids.filter((pid) => {
    const seen = workerOf(pid);
    return seen !== undefined && !seen.exited && seen.marked;
  });
}

/**
 * Whether `pid` is a child of this process started through tinypool's entry;
 * undefined where /proc is missing or `pid` is gone (reaped, or never was).
 * An exited child not yet reaped has no command line left: being this
 * process's child is all it can show, and is enough.
 */
export function isOwnWorkerProcess(pid: number): boolean | undefined {
  const seen = workerOf(pid);
  return seen === undefined ? undefined : seen.ppid === process.pid && (seen.marked || seen.exited);
}

/** What /proc says of `pid`: its parent, whether it has exited (a zombie) and whether its command line names tinypool's entry. */
function workerOf(pid: number): { ppid: number; exited: boolean; marked: boolean } | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; the last ") " ends it.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    return { ppid: Number(ppid), exited: state === "Z", marked: readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(WORKER_MARKER) };
  } catch {
    return undefined;
  }
}
