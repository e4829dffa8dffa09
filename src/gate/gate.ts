/**
 * @module src/gate/gate
 * The gate: `beforeToolCall(call, context)` answers allow or block, and may
 * take as long as it needs (a person approving on a phone). The host calls it
 * before the call takes a worker or starts its clock. A gate that throws, or
 * answers something that is not a decision, blocks the call: a broken gate
 * must fail closed.
 *
 * The gate is told who asked (`context.caller`: an MCP session, a
 * conversation; absent for the embedding program) and, when the call's
 * caller can put a question to a person (an MCP client with elicitation),
 * how to ask (`context.askUser`). The default gate asks that person about
 * what the effect policy leaves to `ask`, and otherwise refuses with the
 * config key that would allow it (approval.ts).
 */
import { z } from "zod";
import { deferredToUses, policyAdvice } from "./approval.js";
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

/**
 * Puts a call (or one capability use of it) to the person behind its caller
 * and answers their decision: allow when they accepted, block (naming what
 * they did) otherwise. Given per call (CallOptions.askUser), so the question
 * travels with the request that made it, never through a global.
 */
export type AskUser = (call: GateCall, signal: AbortSignal | undefined) => Promise<GateDecision>;

export type GateContext = {
  signal: AbortSignal | undefined;
  /** Who asked for the call; absent when the embedding program did. */
  caller?: { readonly id: string };
  /** How to ask the person behind the caller; absent when nobody can be asked. */
  askUser?: AskUser;
};

export const GateDecision = z.union([
  z.strictObject({ action: z.literal("allow") }),
  z.strictObject({ action: z.literal("block"), reason: z.string().min(1).max(2000) }),
]);
export type GateDecision = z.infer<typeof GateDecision>;

export type BeforeToolCall = (call: GateCall, context: GateContext) => GateDecision | Promise<GateDecision>;

/**
 * The default gate: allow what the effect policy allows; what it leaves to
 * `ask` goes to the person behind the caller when one can be asked, and is
 * blocked with the config key that would allow it otherwise.
 */
export const defaultGate: BeforeToolCall = (call, context) => {
  if (call.policy === "allow") return { action: "allow" };
  if (context.askUser === undefined) return { action: "block", reason: policyAdvice(call, "nobody can be asked to approve it here") };
  return deferredToUses(call) ? { action: "allow" } : context.askUser(call, context.signal);
};

/**
 * The gate's verdict. corral's own default gate is answered in place (its
 * answer needs no check and no wait, so a warm call awaits nothing here);
 * any other gate is awaited and its answer checked (askGate).
 */
export function judgeGate(gate: BeforeToolCall, call: GateCall, context: GateContext): GateDecision | Promise<GateDecision> {
  // In place only when nothing is awaited: an allow, or a refusal nobody can be asked about.
  if (gate === defaultGate && (call.policy === "allow" || context.askUser === undefined)) return defaultGate(call, context) as GateDecision;
  return askGate(gate, call, context);
}

export async function askGate(gate: BeforeToolCall, call: GateCall, context: GateContext): Promise<GateDecision> {
  try {
    const parsed = GateDecision.safeParse(await gate(call, context));
    return parsed.success ? parsed.data : { action: "block", reason: "the gate answered something that is not { action: 'allow' | 'block' }; the call was blocked" };
  } catch (error) {
    return { action: "block", reason: `the gate failed (${error instanceof Error ? error.message : "unknown error"}); the call was blocked` };
  }
}
