/**
 * @module sandbox/shared/replies
 * What a worker answers a task with: one reply per task type, each naming
 * its outcome kind (classify.ts decides it from evidence) and the metrics of
 * the run. The host reads them; a Code Mode script's fast lane keeps a
 * CallReply in each record (fast-lane-schemas.ts).
 */
import { z } from "zod";
import { OutcomeKind } from "./outcome-kinds.js";

/** JSON text travels as strings so that nothing is serialised twice. */
const JsonText = z.string();

export const Metrics = z.strictObject({
  wallMs: z.number().nonnegative(),
  cpuMs: z.number().nonnegative(),
  heapBytes: z.number().int().nonnegative(),
});
export type Metrics = z.infer<typeof Metrics>;

/**
 * The isolate keys the worker's cache dropped (evicted, or found dead) since
 * its previous reply, when there are any: the host's routing follows them.
 */
const Evicted = z.array(z.string()).optional();

export const DescribeReply = z.strictObject({
  type: z.literal("describe"),
  /** "ok", compile_error (the module refused), or a limit's kind (classify.ts). */
  kind: OutcomeKind,
  /** The guest's manifest list as JSON text, when `kind` is "ok". */
  manifestsJson: JsonText.optional(),
  /** The isolate key the worker kept warm from this load (a module of one tool). */
  kept: z.string().optional(),
  message: z.string().optional(),
  metrics: Metrics,
  evicted: Evicted,
});
export type DescribeReply = z.infer<typeof DescribeReply>;

export const CallReply = z.strictObject({
  type: z.literal("call"),
  /** The call's outcome, classified by the worker (classify.ts). */
  kind: OutcomeKind,
  /** The guest's envelope, when the guest answered; its `ok`/`kind` agree with `kind` unless a limit overrode it. */
  envelopeJson: JsonText.optional(),
  message: z.string().optional(),
  metrics: Metrics,
  /** True when the call ran in an isolate that was already warm. */
  warm: z.boolean(),
  evicted: Evicted,
});
export type CallReply = z.infer<typeof CallReply>;

export const WarmReply = z.strictObject({
  type: z.literal("warm"),
  kind: OutcomeKind,
  /** The isolate key now warm in this worker, when `kind` is "ok". */
  kept: z.string().optional(),
  message: z.string().optional(),
  metrics: Metrics,
  evicted: Evicted,
});
export type WarmReply = z.infer<typeof WarmReply>;

export const Reply = z.discriminatedUnion("type", [DescribeReply, CallReply, WarmReply]);
export type Reply = z.infer<typeof Reply>;
