/**
 * @module src/gate/gate
 * The gate: `beforeToolCall(call, context)` answers allow or block, and may
 * take as long as it needs (a person approving on a phone). The host calls it
 * before the call takes a worker or starts its clock. A gate that throws, or
 * answers something that is not a decision, blocks the call: a broken gate
 * must fail closed.
 */
import { z } from "zod";
import type { EffectDecision } from "./effect-policy.js";

export type GateCall = {
  callId: string;
  tool: string;
  source: string;
  /** The input as the caller gave it (plain data). */
  input: unknown;
  /** What the tool declared; null when it declared nothing. */
  effects: string[] | null;
  /** The effect policy's answer: `allow` or `ask` (a `deny` never reaches the gate). */
  policy: Exclude<EffectDecision, "deny">;
  /**
   * Set when the gate is asked about one capability use of a running call
   * (its effect's policy is `ask`): the effect, what is done and to what
   * (a URL without its query, a path, a state key). The call's clock is
   * paused while the gate decides.
   */
  capability?: { effect: string; operation: string; target: string };
};

export type GateContext = { signal: AbortSignal | undefined };

export const GateDecision = z.union([
  z.strictObject({ action: z.literal("allow") }),
  z.strictObject({ action: z.literal("block"), reason: z.string().min(1).max(2000) }),
]);
export type GateDecision = z.infer<typeof GateDecision>;

export type BeforeToolCall = (call: GateCall, context: GateContext) => GateDecision | Promise<GateDecision>;

/** The default gate: allow what the effect policy allows, block what it would ask about. */
export const defaultGate = (call: GateCall): GateDecision =>
  call.policy === "allow"
    ? { action: "allow" }
    : {
        action: "block",
        reason: `"${call.tool}" declares effects (${call.effects === null ? "undeclared: treated as all" : call.effects.join(", ")}) that need the embedding program's approval; configure beforeToolCall or the effect policy`,
      };

/**
 * The gate's verdict. corral's own default gate is answered in place (its
 * answer needs no check and no wait, so a warm call awaits nothing here);
 * any other gate is awaited and its answer checked (askGate).
 */
export function judgeGate(gate: BeforeToolCall, call: GateCall, context: GateContext): GateDecision | Promise<GateDecision> {
  return gate === defaultGate ? defaultGate(call) : askGate(gate, call, context);
}

export async function askGate(gate: BeforeToolCall, call: GateCall, context: GateContext): Promise<GateDecision> {
  try {
    const parsed = GateDecision.safeParse(await gate(call, context));
    return parsed.success ? parsed.data : { action: "block", reason: "the gate answered something that is not { action: 'allow' | 'block' }; the call was blocked" };
  } catch (error) {
    return { action: "block", reason: `the gate failed (${error instanceof Error ? error.message : "unknown error"}); the call was blocked` };
  }
}
