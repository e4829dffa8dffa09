// What the figures were measured on: CPU, cores, memory, Node, isolated-vm,
// tinypool, the date, and the machine's load (others' work makes noise).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(fileURLToPath(new URL("../..", import.meta.url)));
const require = createRequire(join(ROOT, "package.json"));

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")).version;
  } catch {
    return undefined;
  }
}

function cpuModel() {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match) return match[1].trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? "unknown";
}

/** The installed isolated-vm build, found the way the worker finds it. */
function isolatedVm() {
  for (const name of ["isolated-vm", "isolated-vm-node22", "isolated-vm-node20"]) {
    const version = packageVersion(name);
    if (version !== undefined) return { name, version };
  }
  return { name: "none", version: "none" };
}

function gitCommit() {
  try {
    const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const commit = git("rev-parse", "--short=12", "HEAD");
    // The page this bench writes is not a change to what it measures.
    const changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs/benchmarks.md");
    return changed === "" ? commit : `${commit} + uncommitted changes`;
  } catch {
    return "unknown";
  }
}

export function describeMachine() {
  return {
    cpu: cpuModel(),
    cores: availableParallelism(),
    memoryGb: totalmem() / 1024 ** 3,
    node: process.version,
    isolatedVm: isolatedVm(),
    tinypool: packageVersion("tinypool"),
    commit: gitCommit(),
    date: new Date().toISOString(),
    loadAverage: loadavg(),
  };
}

/** Load averages now (1, 5, 15 min). */
export const currentLoad = () => loadavg();

const TICKS_PER_S = 100;

/**
 * CPU time used so far, in ms: by the whole machine (/proc/stat, all
 * cores) and by this process with its reaped children (/proc/self/stat).
 * Two readings give how much CPU other processes took meanwhile: the noise.
 */
export function cpuSnapshot() {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    const own = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ").map(Number);
    // After "pid (comm) ": utime, stime, cutime, cstime are fields 11-14.
    const ownTicks = own[11] + own[12] + own[13] + own[14];
    return { at: performance.now(), machineMs: ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_S, ownMs: (ownTicks * 1000) / TICKS_PER_S };
  } catch {
    return undefined;
  }
}

/** Other processes' share of the machine between two snapshots (0..1 of all cores), or undefined. */
export function othersShare(before, after, cores) {
  if (before === undefined || after === undefined) return undefined;
  const others = after.machineMs - before.machineMs - (after.ownMs - before.ownMs);
  return Math.max(0, others) / ((after.at - before.at) * cores);
}
