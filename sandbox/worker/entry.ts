/**
 * @module sandbox/worker/entry
 * The sandbox worker process: tinypool forks it (with --no-node-snapshot) and
 * calls the default export once per task. It is the only place isolated-vm is
 * loaded. A worker runs one task at a time (the host gives every task an
 * abort signal, and tinypool then never shares a worker), so a kill by the
 * host's watchdog ends one call only.
 *
 * ```
 * task ─▶ parse (zod) ─▶ "started" on the task channel (pid, for the watchdog)
 *      ─▶ describe: fresh isolate, load, describe, dispose
 *      ─▶ call: warm isolate from the cache, or create one; invoke; keep it
 *      ─▶ Reply (plain data; the envelope stays JSON text)
 * ```
 */
import { z } from "zod";
import { Task, type CallTask, type DescribeTask, type CallReply, type DescribeReply, type Reply } from "../protocol.js";
import { bundleCode } from "./bundle-store.js";
import { IsolateCache } from "./isolate-cache.js";
import { LoadFailure, ToolIsolate } from "./tool-isolate.js";

const WorkerSettings = z.strictObject({
  maxWarmIsolates: z.number().int().positive(),
  maxWarmHeapMb: z.number().int().positive(),
  loadTimeoutMs: z.number().int().positive(),
});
export type WorkerSettings = z.infer<typeof WorkerSettings>;

const settings = WorkerSettings.parse(JSON.parse(process.env.CORRAL_WORKER_SETTINGS ?? "{}"));
const cache = new IsolateCache({ maxIsolates: settings.maxWarmIsolates, maxHeapBytes: settings.maxWarmHeapMb * 1024 * 1024 });

function announce(): void {
  // Goes to this task's channel on the host: the pid lets the watchdog watch
  // this process's memory. The watchdog's clock does not wait for it.
  process.send?.({ type: "started", pid: process.pid });
}

async function describe(task: DescribeTask): Promise<DescribeReply> {
  const created = ToolIsolate.create({
    code: bundleCode(task.bundle),
    filename: task.bundle.filename,
    memoryMb: task.limits.memoryMb,
    loadTimeoutMs: task.limits.timeoutMs,
  });
  if (created instanceof LoadFailure) {
    return { type: "describe", end: created.end, message: created.message, metrics: { wallMs: 0, cpuMs: 0, heapBytes: 0 } };
  }
  try {
    const run = await created.describe(task.limits);
    return { type: "describe", end: run.end, manifestsJson: run.text, message: run.message, metrics: run.metrics };
  } finally {
    created.dispose();
  }
}

async function call(task: CallTask): Promise<CallReply> {
  const key = `${task.bundle.hash}:${task.limits.memoryMb}:${task.tool}`;
  let isolate = cache.take(key);
  const warm = isolate !== undefined;
  if (isolate === undefined) {
    const created = ToolIsolate.create({
      code: bundleCode(task.bundle),
      filename: task.bundle.filename,
      memoryMb: task.limits.memoryMb,
      loadTimeoutMs: task.limits.timeoutMs,
    });
    if (created instanceof LoadFailure) {
      return { type: "call", end: created.end, message: created.message, metrics: { wallMs: 0, cpuMs: 0, heapBytes: 0 }, warm };
    }
    isolate = created;
  }
  const run = await isolate.invoke(task.tool, task.inputJson, task.callId, task.limits);
  cache.keep(key, isolate);
  return { type: "call", end: run.end, envelopeJson: run.text, message: run.message, metrics: run.metrics, warm };
}

export default async function runTask(raw: unknown): Promise<Reply> {
  announce();
  const task = Task.parse(raw);
  return task.type === "describe" ? describe(task) : call(task);
}
