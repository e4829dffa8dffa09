/**
 * @module sandbox/worker/entry
 * The sandbox worker process: tinypool forks it (with --no-node-snapshot) and
 * gives it one task, `serve`, that lasts the worker's life. It is the only
 * place isolated-vm is loaded.
 *
 * ```
 * serve ─▶ "ready" {pid} ─▶ for each task of each HostMessage, strictly in order:
 *   describe: fresh isolate, load, describe; kept if the module has one tool
 *   call:     warm isolate from the cache, or create one; invoke; keep it
 *   warm:     create the isolate a call would (unless cached); keep it
 *   ─▶ reply {id, Reply} into the outbox (plain data; the envelope stays JSON text)
 *   outbox ─▶ one "replies" message once it holds as many replies as tasks are
 *             still queued, or before a task that may be slow
 * ```
 *
 * Tasks run one at a time, in order: the host relies on that to know which
 * call is running (the oldest unanswered) without asking this process, so
 * replies are held back only as `holdBack` allows.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  CancelMessage,
  HostMessage,
  QUICK_CALL_MS,
  ServeTask,
  type CallReply,
  type ReplyEntry,
  type CallTask,
  type DescribeReply,
  type DescribeTask,
  type Reply,
  type Task,
  type WarmReply,
  type WarmTask,
  type WorkerMessage,
  isolateKey,
} from "../protocol.js";
import { bundleCode, receiveBundle } from "./bundle-store.js";
import { Cancellations } from "./cancellations.js";
import { IsolateCache } from "./isolate-cache.js";
import { LoadFailure, ToolIsolate } from "./tool-isolate.js";

const WorkerSettings = z.strictObject({
  maxWarmIsolates: z.number().int().positive(),
  maxWarmHeapMb: z.number().int().positive(),
  loadTimeoutMs: z.number().int().positive(),
  /** The memory limit most tools get: the blank isolate kept ready has it. */
  defaultMemoryMb: z.number().int().min(8),
  /** How long past a call's limit the host waits before it kills this worker (see holdBack). */
  watchdogGraceMs: z.number().int().min(0),
});
export type WorkerSettings = z.infer<typeof WorkerSettings>;

const settings = WorkerSettings.parse(JSON.parse(process.env.CORRAL_WORKER_SETTINGS ?? "{}"));
const cache = new IsolateCache({ maxIsolates: settings.maxWarmIsolates, maxHeapBytes: settings.maxWarmHeapMb * 1024 * 1024 });

// One blank isolate (context and guest runtime run, no module) is kept ready
// and made again only while this worker is idle: a cold tool then pays for
// its own module, not for initialising zod.
let blank: ToolIsolate | undefined;
let blankMemoryMb = settings.defaultMemoryMb;
let tasksInFlight = 0;

function takeBlank(memoryMb: number): ToolIsolate | undefined {
  blankMemoryMb = memoryMb;
  if (blank === undefined || blank.memoryMb !== memoryMb || !blank.alive) return undefined;
  const taken = blank;
  blank = undefined;
  return taken;
}

/** A load is usually followed at once by the tool's first call: wait a moment of quiet first. */
const REFILL_AFTER_IDLE_MS = 100;
let refill: NodeJS.Timeout | undefined;

function refillBlank(): void {
  clearTimeout(refill);
  refill = setTimeout(() => {
    if (tasksInFlight > 0 || (blank !== undefined && blank.alive && blank.memoryMb === blankMemoryMb)) return;
    blank?.dispose();
    blank = undefined;
    try {
      blank = ToolIsolate.prepare(blankMemoryMb, settings.loadTimeoutMs);
    } catch {
      // A blank that cannot be made now is made on demand by the next load.
    }
  }, REFILL_AFTER_IDLE_MS);
  refill.unref();
}

/** A new isolate with the task's bundle loaded, from the blank one when it fits. */
function createIsolate(task: Task): ToolIsolate | LoadFailure {
  const options = {
    code: bundleCode(task.bundle),
    filename: task.bundle.filename,
    memoryMb: task.limits.memoryMb,
    loadTimeoutMs: task.limits.timeoutMs,
  };
  return ToolIsolate.create(options, takeBlank(task.limits.memoryMb));
}

async function describe(task: DescribeTask): Promise<DescribeReply> {
  const created = createIsolate(task);
  if (created instanceof LoadFailure) {
    return { type: "describe", end: created.end, message: created.message, metrics: { wallMs: 0, cpuMs: 0, heapBytes: 0 } };
  }
  const run = await created.describe(task.limits);
  const reply: DescribeReply = { type: "describe", end: run.end, manifestsJson: run.text, message: run.message, metrics: run.metrics };
  // A module of one tool: its describe isolate is exactly what that tool's
  // first call would build (fresh context, runtime, the module's top level),
  // so it stays warm under the call's key instead of being built twice.
  const only = run.end === "completed" && run.text !== undefined ? soleToolName(run.text) : undefined;
  if (only !== undefined && created.alive) {
    const key = isolateKey(task.bundle.hash, task.limits.memoryMb, only);
    cache.keep(key, created);
    reply.kept = key;
  } else {
    created.dispose();
  }
  return reply;
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

/** Whether `task` is a call of a warm isolate whose last call was quick. */
function expectedQuick(task: Task): boolean {
  if (task.type !== "call" || task.fresh === true) return false;
  const warm = cache.peek(isolateKey(task.bundle.hash, task.limits.memoryMb, task.tool, task.scope));
  return warm !== undefined && warm.lastCallMs <= QUICK_CALL_MS;
}

/** Builds and keeps the isolate a call of the task's tool would use (nothing runs if it is warm already). */
function warm(task: WarmTask): WarmReply {
  const key = isolateKey(task.bundle.hash, task.limits.memoryMb, task.tool);
  const metrics = { wallMs: 0, cpuMs: 0, heapBytes: 0 };
  if (cache.peek(key) !== undefined) return { type: "warm", end: "completed", kept: key, metrics };
  const started = performance.now();
  const created = createIsolate(task);
  if (created instanceof LoadFailure) return { type: "warm", end: created.end, message: created.message, metrics };
  cache.keep(key, created);
  const reply: WarmReply = { type: "warm", end: "completed", metrics: { ...metrics, wallMs: performance.now() - started, heapBytes: created.heapBytes } };
  if (cache.peek(key) !== undefined) reply.kept = key;
  return reply;
}

/**
 * Isolates that have run a call. One that has not (a describe's or a
 * warm-up's: only the module's top level ran) holds no caller's data, so a
 * call of any scope, or a fresh call, may take it as its own.
 */
const served = new WeakSet<ToolIsolate>();

/** The call's isolate: its scope's warm one, else an unused one under the key without scope. */
function takeIsolate(task: CallTask): ToolIsolate | undefined {
  const unscoped = isolateKey(task.bundle.hash, task.limits.memoryMb, task.tool);
  if (task.fresh !== true) {
    const own = cache.take(isolateKey(task.bundle.hash, task.limits.memoryMb, task.tool, task.scope));
    if (own !== undefined || task.scope === undefined || task.scope === "") return own;
  }
  const unused = cache.peek(unscoped);
  return unused !== undefined && !served.has(unused) ? cache.take(unscoped) : undefined;
}

async function call(task: CallTask): Promise<CallReply> {
  const key = isolateKey(task.bundle.hash, task.limits.memoryMb, task.tool, task.scope);
  let isolate = takeIsolate(task);
  const warm = isolate !== undefined;
  if (isolate === undefined) {
    const created = createIsolate(task);
    if (created instanceof LoadFailure) {
      return { type: "call", end: created.end, message: created.message, metrics: { wallMs: 0, cpuMs: 0, heapBytes: 0 }, warm };
    }
    isolate = created;
  }
  served.add(isolate);
  const run = await isolate.invoke(task.tool, task.inputJson, task.callId, task.limits);
  isolate.lastCallMs = run.metrics.wallMs;
  // A fresh call's isolate is never used again: nothing it left can reach another call.
  if (task.fresh === true) isolate.dispose();
  else cache.keep(key, isolate);
  return { type: "call", end: run.end, envelopeJson: run.text, message: run.message, metrics: run.metrics, warm };
}

/**
 * Run once at boot, before tinypool reports this process ready: the first
 * isolate of a process pays for compiling the guest runtime (and makes the
 * code cache the others reuse), and the first message for compiling this
 * process's own code and zod's parsers of the messages (~8 ms for the first
 * HostMessage on a slow machine). Both are paid here, through the same path
 * a host's call takes, by a module of our own; a spare process pays it while
 * idle, so neither a new host's first call nor the call after a crash does.
 */
const WARM_UP_MODULE = `const { defineTool } = require("corral"); const { z } = require("zod");
module.exports = defineTool({ name: "warm_up", description: "warms the worker", input: z.object({ text: z.string() }),
  effects: [], run: ({ text }) => ({ words: text.split(" ").length, at: new Date(0) }) });`;

async function warmUp(): Promise<void> {
  const limits = { timeoutMs: 5_000, memoryMb: settings.defaultMemoryMb, maxOutputBytes: 64 * 1024, maxDepth: 8 };
  const bundle = { hash: createHash("sha256").update(WARM_UP_MODULE).digest("hex"), filename: "corral:warm-up", code: WARM_UP_MODULE };
  const describeTask = { type: "describe", bundle, limits };
  const callTask = { type: "call", callId: "warm-up", bundle, tool: "warm_up", inputJson: '{"text":"a b c"}', limits };
  const replies: ReplyEntry[] = [];
  warming: for (let id = 0; id < 20; id++) {
    const parsed = HostMessage.parse({ corral: 1, tasks: [{ id, task: id === 0 ? describeTask : callTask }] });
    CancelMessage.safeParse({ corral: 1, cancel: id });
    for (const entry of parsed.tasks) {
      const reply = await handle(entry.task);
      // The warm-up only saves the first call some compiling: on a machine so
      // busy that it cannot finish under its limits, the worker serves cold
      // rather than dying at boot (and being forked again, for ever).
      if (reply.end !== "completed") break warming;
      replies.push({ id: entry.id, reply });
    }
  }
  JSON.stringify({ corral: 1, type: "replies", replies } satisfies WorkerMessage);
  cache.clear();
  cache.takeDropped();
}

await warmUp();
try {
  blank = ToolIsolate.prepare(blankMemoryMb, settings.loadTimeoutMs);
} catch {
  // As in refillBlank: a blank that cannot be made now (the runtime ran past
  // loadTimeoutMs on a busy machine) is made on demand by the next load.
}

/** Resolves once the event loop has polled for I/O: two check phases later, one poll phase has run between them. */
function messagesRead(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

async function handle(task: Task): Promise<Reply> {
  try {
    if (task.type === "describe") return await describe(task);
    return task.type === "call" ? await call(task) : warm(task);
  } catch (error) {
    // A failure of this worker's own code, not of the tool: report it as a crash.
    return crashed(task, `the sandbox worker failed: ${error instanceof Error ? error.message : "unknown error"}`);
  }
}

function skipped(task: Task): Reply {
  return crashed(task, "the call was cancelled before it started");
}

/** A reply of the task's own type that ran nothing: `crash`, with `message`. */
function crashed(task: Task, message: string): Reply {
  const metrics = { wallMs: 0, cpuMs: 0, heapBytes: 0 };
  if (task.type === "call") return { type: "call", end: "crash", message, metrics, warm: false };
  return { type: task.type, end: "crash", message, metrics };
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

/** Replies not yet written, in task order. */
let outbox: ReplyEntry[] = [];
/** While replies are held: the bundle of their tasks, and when the oldest must be written by. */
let held: { bundle: string; sendBy: number } | undefined;

function flush(): void {
  held = undefined;
  if (outbox.length === 0) return;
  const replies = outbox;
  outbox = [];
  send({ corral: 1, type: "replies", replies });
}

/**
 * Whether the replies held now may wait while `task` runs. The host takes
 * the oldest unanswered task for the running one and kills this worker past
 * its limit + grace, counting from about when it arrived here; so a reply is
 * held only behind a call that (1) is of a warm isolate whose last call was
 * quick, (2) is of the same bundle as the held ones, so that should this
 * worker hang in it after all (a limit that failed to stop it), the kill is
 * charged to the same source, and (3) cannot run past the oldest held
 * task's limit + half the grace, even to its own limit.
 */
function holdBack(task: Task): boolean {
  if (held === undefined) return true;
  return expectedQuick(task) && task.bundle.hash === held.bundle && performance.now() + task.limits.timeoutMs < held.sendBy;
}

/** The one tinypool task: serve HostMessages until the process ends. */
export default function serve(raw: unknown): Promise<never> {
  ServeTask.parse(raw);
  let queue = Promise.resolve();
  // Tasks the host gave up on before they started: answered without running,
  // so the calls sent ahead behind them do not wait for them.
  const cancels = new Cancellations();
  // Whether the last task ran long enough for the host to have taken back the
  // tasks queued behind it (see takeBack in src/pool/session.ts).
  let lastWasSlow = false;
  const run = async (id: number, task: Task, receivedAt: number): Promise<void> => {
    // Queued tasks start in a microtask, before this process reads anything
    // that came meanwhile: after a slow one, let the event loop read the
    // host's cancels first, so a task run elsewhere by now is not run twice.
    if (lastWasSlow) await messagesRead();
    const skip = cancels.starting(id);
    if (!skip && !holdBack(task)) flush();
    const started = performance.now();
    const reply = skip ? skipped(task) : await handle(task);
    lastWasSlow = performance.now() - started > QUICK_CALL_MS;
    // What the cache dropped rides on a reply the host reads (not a skipped
    // one: the host no longer listens for it).
    const evicted = skip ? [] : cache.takeDropped();
    if (evicted.length > 0) reply.evicted = evicted;
    outbox.push({ id, reply });
    held ??= { bundle: task.bundle.hash, sendBy: receivedAt + task.limits.timeoutMs + settings.watchdogGraceMs / 2 };
    const queued = --tasksInFlight;
    // Held replies leave once they are as many as the tasks still queued
    // here: the host refills this worker's pipeline while it runs the rest,
    // so it never waits on the round trip with nothing to do.
    if (outbox.length >= queued) flush();
    // Should the next task wait on timers or promises after all, the turn of
    // the event loop it gives up sends what is held.
    else if (outbox.length === 1) setImmediate(flush);
    if (queued === 0) refillBlank();
  };
  process.on("message", (raw: unknown) => {
    // Most messages are tasks: only one that names `cancel` is parsed as a cancel.
    if (typeof raw === "object" && raw !== null && "cancel" in raw) {
      const cancel = CancelMessage.safeParse(raw);
      if (cancel.success) cancels.cancel(cancel.data.cancel);
      return;
    }
    const parsed = HostMessage.safeParse(raw);
    if (!parsed.success) return; // tinypool's own messages, or noise
    clearTimeout(refill);
    const receivedAt = performance.now();
    for (const { id, task } of parsed.data.tasks) {
      receiveBundle(task.bundle);
      cancels.received(id);
      tasksInFlight++;
      queue = queue.then(() => run(id, task, receivedAt));
    }
  });
  send({ corral: 1, type: "ready", pid: process.pid });
  return new Promise<never>(() => {
    // Never settles: the host ends a worker by aborting this task (tinypool
    // kills the process) or by destroying the pool.
  });
}
