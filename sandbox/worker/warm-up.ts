/**
 * @module sandbox/worker/warm-up
 * The worker's boot warm-up, kept apart from WorkerCore because it runs once
 * and is no part of serving: the first isolate of a process pays for
 * compiling the guest runtime (and makes the code cache the others reuse), so
 * a module of our own pays it, through the same path a host's call takes,
 * before tinypool reports this process ready.
 */
import { createHash } from "node:crypto";
import type { Reply } from "../shared/replies.js";
import type { Task } from "../shared/tasks.js";
import { WARM_UP_TASKS } from "../shared/tuning.js";

const WARM_UP_MODULE = `const { defineTool } = require("corral"); const { z } = require("zod");
module.exports = defineTool({ name: "warm_up", description: "warms the worker", input: z.object({ text: z.string() }),
  effects: [], run: ({ text }) => ({ words: text.split(" ").length, at: new Date(0) }) });`;

/**
 * Describes the warm-up module once, then calls its tool, through `handle`;
 * `each` runs after every task that answered ok.
 */
export async function runWarmUp(handle: (task: Task) => Promise<Reply>, memoryMb: number, each: (task: Task, reply: Reply) => void): Promise<void> {
  const limits = { timeoutMs: 5_000, memoryMb, maxOutputBytes: 64 * 1024, maxDepth: 8 };
  const bundle = { hash: createHash("sha256").update(WARM_UP_MODULE).digest("hex"), filename: "corral:warm-up", code: WARM_UP_MODULE };
  const describeTask: Task = { type: "describe", bundle, limits };
  const callTask: Task = { type: "call", callId: "warm-up", bundle, tool: "warm_up", inputJson: '{"text":"a b c"}', limits };
  for (let i = 0; i < WARM_UP_TASKS; i++) {
    const task = i === 0 ? describeTask : callTask;
    const reply = await handle(task);
    // The warm-up only saves the first call some compiling: on a machine so
    // busy that it cannot finish under its limits, the worker serves cold
    // rather than dying at boot (and being forked again, for ever).
    if (reply.kind !== "ok") break;
    each(task, reply);
  }
}
