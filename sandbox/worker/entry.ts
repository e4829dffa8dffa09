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
 *   a script's call with a fast lane: its pre-authorized tool calls run here (fast-lane.ts)
 *   ─▶ reply {id, Reply} into the outbox (plain data; the envelope stays JSON text)
 *   outbox ─▶ one "replies" message once it holds as many replies as tasks are
 *             still queued, or before a task that may be slow
 * ```
 *
 * Tasks run one at a time, in order: the host relies on that to know which
 * call is running (the oldest unanswered) without asking this process, so
 * replies are held back only as `holdBack` allows.
 */
import { CancelMessage, HostMessage, NestedMessage, ServeTask, type ReplyEntry, type WorkerMessage } from "../shared/session-messages.js";
import type { LaneRecords } from "../shared/fast-lane-schemas.js";
import type { Reply } from "../shared/replies.js";
import type { Task } from "../shared/tasks.js";
import { QUICK_CALL_MS } from "../shared/tuning.js";
import { receiveBundle } from "./bundle-store.js";
import { Cancellations } from "./cancellations.js";
import { WorkerCore, WorkerSettings } from "./worker-core.js";
import { failed } from "./own-replies.js";
import { receiveCapabilityReply } from "./capability-relay.js";
import { FastLane } from "./fast-lane.js";
import { NestedQueue } from "./nested-queue.js";
import { openJournal } from "./journal-writer.js";

export { WorkerSettings } from "./worker-core.js";

const core = new WorkerCore(WorkerSettings.parse(JSON.parse(process.env.CORRAL_WORKER_SETTINGS ?? "{}")));

// The first message costs compiling this process's own code and zod's
// parsers of the messages (~8 ms for the first HostMessage on a slow
// machine): paid here, with the core's warm-up, while the process is idle.
const warmUpReplies: ReplyEntry[] = [];
await core.warmUp((task, reply) => {
  const id = warmUpReplies.length;
  HostMessage.parse({ corral: 1, tasks: [{ id, task }] });
  CancelMessage.safeParse({ corral: 1, cancel: id });
  warmUpReplies.push({ id, reply });
});
JSON.stringify({ corral: 1, type: "replies", replies: warmUpReplies } satisfies WorkerMessage);
try {
  core.prepareBlank();
} catch {
  // As in the idle refill: a blank that cannot be made now (the runtime ran past
  // loadTimeoutMs on a busy machine) is made on demand by the next load.
}

/** Resolves once the event loop has polled for I/O: two check phases later, one poll phase has run between them. */
function messagesRead(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

function skipped(task: Task): Reply {
  return failed(task, "cancelled", "the call was cancelled before it started");
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

/** A fast lane's records its journal did not take: sent, settled once written to the channel (or once the write failed: the host is gone). */
function sendRecords(message: LaneRecords): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
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
 * task's reply deadline (`replyWithinMs`, which the host sends with each
 * task: its limit + HOLD_BACK_GRACE_SHARE of the grace), even to its own limit.
 */
function holdBack(task: Task): boolean {
  if (held === undefined) return true;
  return core.expectedQuick(task) && task.bundle.hash === held.bundle && performance.now() + task.limits.timeoutMs < held.sendBy;
}

/**
 * Code Mode scripts' nested calls, from the host (NestedMessage) or a
 * script's fast lane: one at a time in the order they came, beside the task
 * queue (nested-queue.ts). A script's reply leaves only once its nested
 * calls are answered and its lane records sent, so the host never times the
 * next task while a nested call still runs here.
 */
// The script's timers wait from the first nested call until the last is answered.
const nestedQueue = new NestedQueue({ busy: (busy) => core.holdScriptTimers(busy) });

function runNested(id: number, task: NestedMessage["nested"]["task"]): void {
  core.tasksInFlight++;
  void nestedQueue.run(async () => {
    const reply = await core.handle(task);
    if (reply.type !== "call") throw new Error("corral: a nested call answered with another reply type");
    const evicted = core.takeDropped();
    if (evicted.length > 0) reply.evicted = evicted;
    core.tasksInFlight--;
    send({ corral: 1, type: "nested", id, reply });
  });
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
  const run = async (id: number, task: Task, receivedAt: number, replyWithinMs: number | undefined): Promise<void> => {
    // Queued tasks start in a microtask, before this process reads anything
    // that came meanwhile: after a slow one, let the event loop read the
    // host's cancels first, so a task run elsewhere by now is not run twice.
    if (lastWasSlow) await messagesRead();
    const skip = cancels.starting(id);
    if (!skip && !holdBack(task)) flush();
    const started = performance.now();
    // A Code Mode script's pre-authorized tools run here without asking the host per call.
    const lane = !skip && task.type === "call" && task.fastLane !== undefined ? new FastLane(task.callId, task.fastLane, { core, queue: nestedQueue, journal: openJournal(task.fastLane.journal), sendRecords, wake: () => send({ corral: 1, type: "journal" }) }) : undefined;
    const reply = skip ? skipped(task) : await core.handle(task, (phase) => {
      // The host times the load by the load limit: what is held leaves first.
      if (phase === "load") flush();
      send({ corral: 1, type: "phase", id, phase });
    });
    if (nestedQueue.pending > 0) await nestedQueue.idle();
    lane?.close();
    lastWasSlow = performance.now() - started > QUICK_CALL_MS;
    // What the cache dropped rides on a reply the host reads (not a skipped
    // one: the host no longer listens for it).
    const evicted = skip ? [] : core.takeDropped();
    if (evicted.length > 0) reply.evicted = evicted;
    outbox.push({ id, reply });
    // How long a reply may be held is the host's to say (it knows its watchdog), with each task.
    if (replyWithinMs === undefined) flush();
    else held ??= { bundle: task.bundle.hash, sendBy: receivedAt + replyWithinMs };
    const queued = --core.tasksInFlight;
    // Held replies leave once they are as many as the tasks still queued
    // here: the host refills this worker's pipeline while it runs the rest,
    // so it never waits on the round trip with nothing to do.
    if (outbox.length >= queued) flush();
    // Should the next task wait on timers or promises after all, the turn of
    // the event loop it gives up sends what is held.
    else if (outbox.length === 1) setImmediate(flush);
    if (queued === 0) core.idle();
  };
  process.on("message", (raw: unknown) => {
    if (receiveCapabilityReply(raw)) return;
    if (typeof raw === "object" && raw !== null && "nested" in raw) {
      const nested = NestedMessage.safeParse(raw);
      if (nested.success) {
        receiveBundle(nested.data.nested.task.bundle);
        runNested(nested.data.nested.id, nested.data.nested.task);
      }
      return;
    }
    // Most messages are tasks: only one that names `cancel` is parsed as a cancel.
    if (typeof raw === "object" && raw !== null && "cancel" in raw) {
      const cancel = CancelMessage.safeParse(raw);
      if (cancel.success) cancels.cancel(cancel.data.cancel);
      return;
    }
    const parsed = HostMessage.safeParse(raw);
    if (!parsed.success) return; // tinypool's own messages, or noise
    core.stopIdleWork();
    const receivedAt = performance.now();
    for (const { id, task, replyWithinMs } of parsed.data.tasks) {
      receiveBundle(task.bundle);
      if (task.type === "call") for (const tool of task.fastLane?.tools ?? []) receiveBundle(tool.bundle);
      cancels.received(id);
      core.tasksInFlight++;
      queue = queue.then(() => run(id, task, receivedAt, replyWithinMs));
    }
  });
  send({ corral: 1, type: "ready", pid: process.pid });
  return new Promise<never>(() => {
    // Never settles: the host ends a worker by aborting this task (tinypool
    // kills the process) or by destroying the pool.
  });
}
