/**
 * @module sandbox/shared/tasks
 * The tasks the host sends a worker: describe a module, call a tool, warm a
 * tool's isolate. Types and zod schemas only; what crosses the boundary and
 * how it is batched is session-messages.ts.
 *
 * ```
 *  host ──Task (in a HostMessage)───────▶ worker ──apply──▶ guest runtime
 *  host ◀─Reply (in a WorkerMessage)──── worker ◀─JSON text─ guest runtime
 * ```
 */
import { z } from "zod";
import { FastLane } from "./fast-lane-schemas.js";
import { PayloadCaps } from "./capability-messages.js";
import { BundleRef, CallLimits, Scope } from "./task-parts.js";

/** JSON text travels as strings so that nothing is serialised twice. */
const JsonText = z.string();

export const DescribeTask = z.strictObject({
  type: z.literal("describe"),
  bundle: BundleRef,
  limits: CallLimits,
});
export type DescribeTask = z.infer<typeof DescribeTask>;

export const CallTask = z.strictObject({
  type: z.literal("call"),
  callId: z.string(),
  bundle: BundleRef,
  tool: z.string(),
  inputJson: JsonText,
  limits: CallLimits,
  /** Whom the call is for: its isolate is never one a call of another scope used. Left out: the default scope. */
  scope: Scope.optional(),
  /** `isolation: "call"`: a fresh isolate that is disposed after this call; nothing carries over. */
  fresh: z.literal(true).optional(),
  /** A Code Mode script's pre-authorized tools (fast-lane-schemas.ts). */
  fastLane: FastLane.optional(),
  /** The largest payload of each kind this call's capability requests may carry (its source's grant); left out: none. */
  payloadCaps: PayloadCaps.optional(),
});
export type CallTask = z.infer<typeof CallTask>;

/**
 * Builds the isolate a call of `tool` under `limits` would use, runs
 * nothing of the tool and keeps the isolate warm: sent when a load took its
 * manifests from a cache (no describe built one), so the tool's first call
 * finds its isolate as after a describe.
 */
export const WarmTask = z.strictObject({
  type: z.literal("warm"),
  bundle: BundleRef,
  tool: z.string(),
  limits: CallLimits,
});
export type WarmTask = z.infer<typeof WarmTask>;

export const Task = z.discriminatedUnion("type", [DescribeTask, CallTask, WarmTask]);
export type Task = z.infer<typeof Task>;
