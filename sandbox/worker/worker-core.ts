/**
 * @module sandbox/worker/worker-core
 * What a sandbox worker does with a task, apart from its process: the
 * isolate cache, the blank isolate kept ready (blank-isolate.ts), the work
 * left for idle time (idle-work.ts), and describe / call / warm.
 * entry.ts wires it to the host's messages; tests drive it in-process with
 * real isolates (worker-core.test.ts).
 *
 * ```
 * describe: fresh isolate, load (load limits), describe; kept if the module has one tool
 * call:     warm isolate from the cache, or create one (its top level under the
 *           load limits); invoke under the call's limits; keep it
 * warm:     create the isolate a call would (unless cached); keep it
 * ```
 * Every kept isolate, whoever made it, is in the one cache and counted in its
 * memory budget (heap and external memory), so it is evicted before it can
 * push another source's call over a limit.
 */
import { z } from "zod";
import { isolateKey } from "../shared/task-parts.js";
import type { CallReply, DescribeReply, Reply, WarmReply } from "../shared/replies.js";
import type { CallTask, DescribeTask, Task, WarmTask } from "../shared/tasks.js";
import type { TaskPhase } from "../shared/session-messages.js";
import { QUICK_CALL_MS } from "../shared/tuning.js";
import { bundleCode } from "./bundle-store.js";
import { BlankIsolate } from "./blank-isolate.js";
import { IdleWork } from "./idle-work.js";
import { IsolateCache } from "./isolate-cache.js";
import { LoadFailure, ToolIsolate } from "./tool-isolate.js";
import { zeroMetrics, type RunResult } from "./run-result.js";
import { failed, ownFailure } from "./own-replies.js";
import { runWarmUp } from "./warm-up.js";
import { openCapabilityCall } from "./capability-relay.js";

export const WorkerSettings = z.strictObject({
  maxWarmIsolates: z.number().int().positive(),
  maxWarmHeapMb: z.number().int().positive(),
  /** The time limit of a module's top level, wherever it runs (describe, warm-up, a cold call). */
  loadTimeoutMs: z.number().int().positive(),
  /** The memory limit most tools get: the blank isolate kept ready has it. */
  defaultMemoryMb: z.number().int().min(8),
});
export type WorkerSettings = z.infer<typeof WorkerSettings>;

export class WorkerCore {
  readonly #settings: WorkerSettings;
  readonly #cache: IsolateCache;
  /** Kept ready for a cold tool (blank-isolate.ts); the cache's budget counts it. */
  readonly #blank: BlankIsolate;
  /** Refills the blank, then collects warm isolates one at a time, only while no task is in flight. */
  readonly #idle: IdleWork;
  /**
   * Isolates that have run a call. One that has not (a describe's or a
   * warm-up's: only the module's top level ran) holds no caller's data, so a
   * call of any scope, or a fresh call, may take it as its own.
   */
  readonly #served = new WeakSet<ToolIsolate>();
  /** The isolate of the outermost call running, and the one whose timers are held for nested calls. */
  #running: ToolIsolate | undefined;
  #held: ToolIsolate | undefined;
  /** Tasks received and not yet answered (the blank is refilled only at zero). */
  tasksInFlight = 0;

  constructor(settings: WorkerSettings) {
    this.#settings = settings;
    this.#blank = new BlankIsolate(settings.defaultMemoryMb, settings.loadTimeoutMs);
    this.#idle = new IdleWork(() => this.tasksInFlight > 0, [this.#blank.refill, () => this.#cache.collectOne(this.#blank.waiting)]);
    this.#cache = new IsolateCache({
      maxIsolates: settings.maxWarmIsolates,
      maxHeapBytes: settings.maxWarmHeapMb * 1024 * 1024,
      reservedBytes: this.#blank.reservedBytes,
    });
  }

  get settings(): WorkerSettings {
    return this.#settings;
  }

  /**
   * Runs one task. `phase` hears when a call or warm-up starts running a
   * module's top level (`load`) and when that is over (`run`).
   */
  async handle(task: Task, phase: (phase: TaskPhase) => void = () => undefined): Promise<Reply> {
    try {
      if (task.type === "describe") return await this.#describe(task);
      return task.type === "call" ? await this.#call(task, phase) : this.#warm(task, phase);
    } catch (error) {
      // A failure of this worker's own code, not of the tool: said so, and no strike.
      return failed(task, "tool_error", ownFailure(error));
    }
  }

  /**
   * A Code Mode script's nested calls start (`true`) or are all answered
   * (`false`): the script's timers wait meanwhile, so the worker's growth
   * while a nested call runs is that call's (src/pool/memory-watch.ts).
   */
  holdScriptTimers(hold: boolean): void {
    if (hold) {
      this.#held = this.#running;
      this.#held?.holdTimers();
      return;
    }
    this.#held?.releaseTimers();
    this.#held = undefined;
  }

  /** The keys the cache dropped since the last call. */
  takeDropped(): string[] {
    return this.#cache.takeDropped();
  }

  /** Whether `task` is a call of a warm isolate whose last call was quick. */
  expectedQuick(task: Task): boolean {
    if (task.type !== "call" || task.fresh === true) return false;
    const warm = this.#cache.peek(isolateKey(task.bundle, task.limits.memoryMb, task.tool, task.scope));
    return warm !== undefined && warm.lastCallMs <= QUICK_CALL_MS;
  }

  /** The number of isolates kept warm now. */
  get warmIsolates(): number {
    return this.#cache.size;
  }

  /** What the kept isolates (and the blank one kept ready) weigh in the budget: heap, external buffers, WebAssembly memory. */
  get warmFootprintBytes(): number {
    return this.#cache.footprintBytes;
  }

  /** Makes the blank isolate now (boot), at the default memory limit. */
  prepareBlank(): void {
    this.#blank.prepare();
  }

  /** Starts the idle work after a moment of quiet (call when no task is queued). */
  idle(): void {
    this.#idle.schedule();
  }

  /** A task came: idle work waits for the next quiet. */
  stopIdleWork(): void {
    this.#idle.stop();
  }

  /** Disposes every isolate this core holds. */
  close(): void {
    this.#idle.stop();
    this.#blank.close();
    this.#cache.clear();
    this.#cache.takeDropped();
  }

  /** A new isolate with the task's bundle loaded (its top level under the load time limit), from the blank one when it fits. */
  #createIsolate(task: Task): ToolIsolate | LoadFailure {
    const options = {
      code: bundleCode(task.bundle),
      filename: task.bundle.filename,
      memoryMb: task.limits.memoryMb,
      loadTimeoutMs: task.type === "describe" ? task.limits.timeoutMs : this.#settings.loadTimeoutMs,
      phase: task.type === "call" ? ("call" as const) : ("load" as const),
    };
    return ToolIsolate.create(options, this.#blank.take(task.limits.memoryMb));
  }

  async #describe(task: DescribeTask): Promise<DescribeReply> {
    const created = this.#createIsolate(task);
    if (created instanceof LoadFailure) return { type: "describe", kind: created.kind, message: created.message, metrics: zeroMetrics() };
    const run = await created.describe(task.limits);
    const reply: DescribeReply = { type: "describe", kind: run.kind, metrics: run.metrics };
    if (run.kind === "ok") reply.manifestsJson = run.text;
    else reply.message = run.message ?? run.text ?? "describing the module's tools failed";
    // A module of one tool: its describe isolate is exactly what that tool's
    // first call would build (fresh context, runtime, the module's top level),
    // so it stays warm under the call's key instead of being built twice.
    const only = run.kind === "ok" && run.text !== undefined ? soleToolName(run.text) : undefined;
    if (only !== undefined && created.alive) {
      const key = isolateKey(task.bundle, task.limits.memoryMb, only);
      this.#cache.keep(key, created);
      if (this.#cache.peek(key) !== undefined) reply.kept = key;
    } else {
      created.dispose();
    }
    return reply;
  }

  /** Builds and keeps the isolate a call of the task's tool would use (nothing runs if it is warm already). */
  #warm(task: WarmTask, phase: (phase: TaskPhase) => void): WarmReply {
    const key = isolateKey(task.bundle, task.limits.memoryMb, task.tool);
    if (this.#cache.peek(key) !== undefined) return { type: "warm", kind: "ok", kept: key, metrics: zeroMetrics() };
    const started = performance.now();
    phase("load");
    const created = this.#createIsolate(task);
    if (created instanceof LoadFailure) return { type: "warm", kind: created.kind, message: created.message, metrics: zeroMetrics() };
    this.#cache.keep(key, created);
    const reply: WarmReply = { type: "warm", kind: "ok", metrics: { wallMs: performance.now() - started, cpuMs: 0, heapBytes: created.heapBytes } };
    if (this.#cache.peek(key) !== undefined) reply.kept = key;
    return reply;
  }

  /** The call's isolate: its scope's warm one, else an unused one under the key without scope. */
  #takeIsolate(task: CallTask): ToolIsolate | undefined {
    const unscoped = isolateKey(task.bundle, task.limits.memoryMb, task.tool);
    if (task.fresh !== true) {
      const own = this.#cache.take(isolateKey(task.bundle, task.limits.memoryMb, task.tool, task.scope));
      if (own !== undefined || task.scope === undefined || task.scope === "") return own;
    }
    const unused = this.#cache.peek(unscoped);
    if (unused === undefined || this.#served.has(unused)) return undefined;
    // It becomes this scope's: it leaves the key without scope, where a call of the default scope ("") would take it as its own.
    this.#cache.release(unscoped);
    return unused;
  }

  async #call(task: CallTask, phase: (phase: TaskPhase) => void): Promise<CallReply> {
    let isolate = this.#takeIsolate(task);
    const warm = isolate !== undefined;
    if (isolate === undefined) {
      phase("load");
      const created = this.#createIsolate(task);
      if (created instanceof LoadFailure) return { type: "call", kind: created.kind, message: created.message, metrics: zeroMetrics(), warm };
      isolate = created;
      phase("run");
    }
    return this.#invoke(task, isolate, warm);
  }

  /**
   * A call of a warm isolate, answered at once when the tool answers in its
   * first entry (a Code Mode script's fast nested call, run inside the
   * script's entry); a promise when the tool waits; undefined, having run
   * nothing, when the isolate is not warm here (the caller takes the
   * ordinary path, which loads it).
   */
  callNow(task: CallTask): CallReply | Promise<CallReply> | undefined {
    const isolate = this.#takeIsolate(task);
    if (isolate === undefined) return undefined;
    try {
      return this.#invoke(task, isolate, true);
    } catch (error) {
      return failed(task, "tool_error", ownFailure(error)) as CallReply;
    }
  }

  #invoke(task: CallTask, isolate: ToolIsolate, warm: boolean): CallReply | Promise<CallReply> {
    this.#served.add(isolate);
    // The outermost call running (a Code Mode script, when nested calls come): its timers are held while they run.
    const outermost = this.#running === undefined;
    if (outermost) this.#running = isolate;
    const over = () => {
      if (outermost) this.#running = undefined;
    };
    let run: RunResult | Promise<RunResult>;
    openCapabilityCall(task.callId, task);
    try {
      run = isolate.invokeNow(task.tool, task.inputJson, task.callId, task.limits);
    } catch (error) {
      over();
      throw error;
    }
    if (!(run instanceof Promise)) {
      over();
      return this.#called(task, isolate, warm, run);
    }
    return run.finally(over).then((done) => this.#called(task, isolate, warm, done));
  }

  #called(task: CallTask, isolate: ToolIsolate, warm: boolean, run: RunResult): CallReply {
    isolate.lastCallMs = run.metrics.wallMs;
    // A fresh call's isolate is never used again: nothing it left can reach another call.
    if (task.fresh === true) isolate.dispose();
    else this.#cache.keep(isolateKey(task.bundle, task.limits.memoryMb, task.tool, task.scope), isolate);
    const reply: CallReply = { type: "call", kind: run.kind, metrics: run.metrics, warm };
    if (run.text !== undefined) reply.envelopeJson = run.text;
    if (run.message !== undefined) reply.message = run.message;
    return reply;
  }

  /**
   * Run once at boot, before tinypool reports this process ready (warm-up.ts);
   * the isolates it made are dropped. `each` runs after every task (entry.ts
   * also warms its message parsing).
   */
  async warmUp(each: (task: Task, reply: Reply) => void = () => undefined): Promise<void> {
    await runWarmUp((task) => this.handle(task), this.#settings.defaultMemoryMb, each);
    this.#cache.clear();
    this.#cache.takeDropped();
  }
}

/** The name of the module's only tool, from the runtime's own description (checked again on the host). */
function soleToolName(manifestsJson: string): string | undefined {
  try {
    const described = JSON.parse(manifestsJson) as { ok?: unknown; tools?: { name?: unknown }[] };
    const tools = described.ok === true && Array.isArray(described.tools) ? described.tools : [];
    return tools.length === 1 && typeof tools[0]?.name === "string" ? tools[0].name : undefined;
  } catch {
    return undefined;
  }
}
