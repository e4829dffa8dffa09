/**
 * @module sandbox/shared/classify
 * The one place an outcome is decided. The guest, the worker and the host
 * each report what they saw (evidence); `classify` maps it to an outcome
 * kind, for calls and loads alike. Nothing else decides a kind: the worker
 * and the host only gather evidence and carry the verdict.
 *
 * ```
 * guest:  answered? with which kind            ┐
 * worker: deadline passed, disposed by limit,   ├─▶ classify ─▶ OutcomeKind
 *         live memory at the limit, oversized,  │
 *         corral's own code failed              │
 * host:   the worker died: who stopped it,      │
 *         exit, V8's out-of-memory words        ┘
 * ```
 *
 * The rules, in order (each reason why is beside it):
 * 1. A worker death decides first: nothing else of the run is known then.
 * 2. A guest answer stands as answered, except: text past the budget is
 *    output_too_large; a failure answered because V8 refused an allocation
 *    with the isolate at its limit is the memory limit (V8 collects garbage
 *    before it refuses, so what it refused for was live). A tool that stayed
 *    under its limit, or freed what it took, and then threw is a tool_error,
 *    however full its heap looked.
 * 3. No answer: the clock first (a tool still running past its time limit
 *    reached that limit before any later disposal), then a disposal by the
 *    memory limit, then corral's own failure (never a strike: a tool_error
 *    that says it was corral), then a crash.
 */
import type { OutcomeKind } from "./outcome-kinds.js";
import type { GuestAnswerKind } from "./guest-api.js";

export type Phase = "load" | "call";

export type WorkerDeath = {
  /** Who ordered the kill, if the host did. */
  stoppedBy?: "watchdog" | "memory_watch" | "cancel";
  /** V8 said on stderr that it ran out of memory. */
  outOfMemory: boolean;
};

export type Evidence = {
  phase: Phase;
  /** What the guest answered, if it answered. A module that refused to load answers `module_refused`. */
  answer?: GuestAnswerKind | "module_refused";
  /** The answer's text is past the output limit (the worker measured it). */
  oversized?: boolean;
  /** The run's clock reached its time limit. */
  deadlinePassed?: boolean;
  /** isolated-vm disposed the isolate itself: only its memory limit does that. */
  disposedByLimit?: boolean;
  /** The guest's failure was V8 refusing an allocation (its own RangeError, not one a tool made). */
  allocationRefused?: boolean;
  /** This isolate's heap and external memory was at 90% of its limit or more when the run ended. */
  nearLimit?: boolean;
  /** corral's own code failed (the runtime broke its contract, the worker threw). */
  internal?: boolean;
  /** The worker process ended during the run. */
  death?: WorkerDeath;
};

export function classify(evidence: Evidence): OutcomeKind {
  const { death, answer } = evidence;
  if (death !== undefined) {
    if (death.stoppedBy === "cancel") return "cancelled";
    if (death.outOfMemory || death.stoppedBy === "memory_watch") return "memory";
    if (death.stoppedBy === "watchdog") return "timeout";
    return "crash";
  }
  if (answer !== undefined) {
    if (evidence.oversized === true) return "output_too_large";
    // A module that refused to load, or whose tools cannot be described (a
    // top level that broke its own schemas), is the module's compile_error
    // at load time; met by a call, it is that call's tool_error.
    if (answer === "module_refused" || (evidence.phase === "load" && answer !== "ok")) return evidence.phase === "load" ? "compile_error" : "tool_error";
    if (answer !== "ok" && evidence.allocationRefused === true && evidence.nearLimit === true) return "memory";
    return answer;
  }
  if (evidence.deadlinePassed === true) return "timeout";
  if (evidence.disposedByLimit === true) return "memory";
  if (evidence.internal === true) return "tool_error";
  return "crash";
}
