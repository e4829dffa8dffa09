/**
 * @module sandbox/shared/fast-lane-schemas
 * The messages of a Code Mode script's fast lane: the tools the host judged
 * for a script when it started (carried in its CallTask), and the records of
 * the calls the worker ran on them (lines of the lane's journal,
 * sandbox/shared/lane-journal.ts, or a WorkerMessage should it fail). The host
 * builds the lane (src/codemode/fast-lane.ts); the worker runs it
 * (sandbox/worker/fast-lane.ts).
 */
import { z } from "zod";
import { OutcomeKind } from "./outcome-kinds.js";
import { CallReply } from "./replies.js";
import { BundleRef, CallLimits, Scope } from "./task-parts.js";

/** Channel limits of a model's text (see src/host/channels.ts), which a fast nested call's answer obeys too. */
export const ChannelCaps = z.strictObject({
  maxModelOutputChars: z.number().int().positive(),
  maxModelOutputLines: z.number().int().positive(),
  maxImageBytes: z.number().int().positive(),
});

/**
 * One tool a Code Mode script may call on the fast lane: the host judged it
 * for this script's caller when the script started (exposure, quarantine,
 * effects allowed without asking, no user gate, no capability to judge), and
 * hands over what the worker needs to run it (src/codemode/fast-lane.ts).
 */
export const FastTool = z.strictObject({
  name: z.string(),
  source: z.string(),
  bundle: BundleRef,
  limits: CallLimits,
});
export type FastTool = z.infer<typeof FastTool>;

/**
 * A script's fast lane: its tool calls of `tools` run in the script's own
 * worker without asking the host per call (sandbox/worker/fast-lane.ts);
 * every other request goes to the host as before.
 */
export const FastLane = z.strictObject({
  tools: z.array(FastTool),
  scope: Scope.optional(),
  maxCalls: z.number().int().positive(),
  maxInFlight: z.number().int().positive(),
  caps: ChannelCaps,
  /**
   * The file the worker writes the lane's journal to (sandbox/shared/lane-journal.ts):
   * made by the session that sends the task (src/pool/lane-journal.ts). Without it nothing runs on the lane.
   */
  journal: z.string().min(1).optional(),
});
export type FastLane = z.infer<typeof FastLane>;

/**
 * One fast nested call, as the host's ledger, events and the script's
 * `details.calls` need it: `tool` indexes the lane's tools; `reply` is the
 * worker's CallReply (the envelope, when the tool answered). A call the
 * worker refused (past maxCalls or maxInFlight) has `refused` instead: it is
 * listed in the script's calls, not recorded against the tool.
 */
export const FastRecord = z.strictObject({
  tool: z.number().int().nonnegative().optional(),
  // The ledger's limit: the host records it as it comes.
  callId: z.string().min(1).max(128),
  ms: z.number().nonnegative(),
  reply: CallReply.optional(),
  refused: z.strictObject({ name: z.string(), kind: OutcomeKind, message: z.string() }).optional(),
});
export type FastRecord = z.infer<typeof FastRecord>;

/** Records of a script's lane calls, in call order (or a refusal, which ran nothing): a line of the lane's journal (sandbox/shared/lane-journal.ts). */
export const LaneRecords = z.strictObject({ corral: z.literal(1), type: z.literal("fast"), callId: z.string(), records: z.array(FastRecord).min(1) });
export type LaneRecords = z.infer<typeof LaneRecords>;
