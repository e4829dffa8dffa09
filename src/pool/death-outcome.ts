/**
 * @module src/pool/death-outcome
 * What a task's caller is answered when its worker ended: the evidence (who
 * stopped the worker, V8's words on stderr, the exit) goes to the one
 * classifier (sandbox/shared/classify.ts), and the answer says what
 * happened and what corral did. A Code Mode script whose worker a tool it
 * called stopped is answered apart (`scriptOutcome`).
 */
import type { Reply } from "../../sandbox/shared/replies.js";
import { classify, type WorkerDeath } from "../../sandbox/shared/classify.js";
import type { Charge } from "./memory-watch.js";
import type { Blamed, NestedCalls, NestedOutcome } from "./nested-calls.js";
import { diedOfMemory, type WorkerProcess } from "./worker-process.js";

/** `tool_error`: a Code Mode script whose worker was stopped for a tool it called (that tool takes the strike). */
export type PoolFailureKind = "timeout" | "memory" | "crash" | "cancelled" | "tool_error";
/** Why the host stopped a worker: the evidence it adds to the worker's death. */
export type StopReason = NonNullable<WorkerDeath["stoppedBy"]> | "fatal_memory" | "protocol";
export type PoolOutcome = { ok: true; reply: Reply } | { ok: false; kind: PoolFailureKind; message: string; culprit?: FastCulprit };
export type FastCulprit = { tool: number; id: string; kind: "timeout" | "memory" | "crash" | "cancelled"; message: string };

/**
 * The running task's outcome when its worker ended: the evidence (who
 * stopped it, V8's words on stderr) goes to the one classifier.
 */
export async function outcomeOfDeath(worker: WorkerProcess | undefined, stop: { reason: StopReason; message: string } | undefined, error: unknown): Promise<PoolOutcome> {
  if (worker === undefined) {
    if (stop !== undefined) return { ok: false, kind: poolKind(classify({ phase: "call", death: deathOf(stop.reason, false) })), message: stop.message };
    return { ok: false, kind: "crash", message: `the sandbox worker failed: ${error instanceof Error ? error.message : "unknown"}` };
  }
  const death = await worker.death();
  const outOfMemory = diedOfMemory(death.stderr);
  const kind = poolKind(classify({ phase: "call", death: deathOf(stop?.reason, outOfMemory) }));
  if (stop !== undefined && (kind !== "memory" || stop.reason !== "watchdog")) return { ok: false, kind, message: stop.message };
  if (stop !== undefined) return { ok: false, kind, message: "the tool exhausted its memory and its worker did not recover; the worker was killed" };
  const how = death.signal !== null ? `signal ${death.signal}` : `exit code ${death.code ?? "unknown"}`;
  if (kind === "memory") return { ok: false, kind, message: `the tool ran its worker out of memory (the worker died: ${how}); the worker was replaced` };
  return { ok: false, kind, message: `the sandbox worker died while running the tool (${how}); the worker was replaced` };
}

/** What the nested call running as its worker ended is told, should it be blamed. */
export function nestedDeath(outcome: PoolOutcome): Exclude<NestedOutcome, { ok: true }> {
  return !outcome.ok && outcome.kind !== "tool_error" ? { ok: false, kind: outcome.kind, message: outcome.message } : { ok: false, kind: "crash", message: "the worker ended" };
}

/**
 * Whether the nested call running as a script's worker ended is to blame:
 * when the kill was its own watchdog's, the memory watch's charged to it,
 * nobody's (a crash), V8's fatal out-of-memory, or the script's watchdog's
 * once the nested call had run past its own limit.
 */
export function nestedToBlame(stop: StopReason | undefined, memoryCharge: Charge | undefined, nested: Pick<NestedCalls, "running" | "runningPastLimit" | "stoppedTheWorker">): boolean {
  if (nested.running === undefined) return false;
  const nestedStopped = nested.stoppedTheWorker || stop === undefined || (stop === "memory_watch" && memoryCharge === "nested") || stop === "fatal_memory";
  return nestedStopped || (stop === "watchdog" && nested.runningPastLimit);
}

/** A script whose worker a tool it called stopped: a tool_error; the tool takes the strike (recorded by the script's owner if the call was fast). */
export function scriptOutcome(blamed: Blamed, message: string): PoolOutcome {
  const outcome: PoolOutcome = {
    ok: false,
    kind: "tool_error",
    message: `the tool "${blamed.tool}" this script called stopped its worker (${message}); the script ended with it. The strike is the tool's`,
  };
  if (blamed.fast !== undefined) outcome.culprit = { tool: blamed.fast.tool, id: blamed.fast.id, kind: blamed.death.kind, message: blamed.death.message };
  return outcome;
}

function deathOf(reason: StopReason | undefined, outOfMemory: boolean): WorkerDeath {
  if (reason === "fatal_memory") return { outOfMemory: true };
  if (reason === undefined || reason === "protocol") return { outOfMemory };
  return { stoppedBy: reason, outOfMemory };
}

/** A death's kind is always one of the pool's; anything else would be a classifier bug, read as a crash. */
function poolKind(kind: string): PoolFailureKind {
  return kind === "timeout" || kind === "memory" || kind === "cancelled" ? kind : "crash";
}
