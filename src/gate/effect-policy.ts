/**
 * @module src/gate/effect-policy
 * What a tool's declared effects allow, per kind of source. Each effect maps
 * to `allow`, `ask` (the gate decides) or `deny`. A tool's decision is the
 * strictest over its effects; a tool that declared none is pure and allowed;
 * a tool whose effects are missing or unknown is judged as if it declared
 * every effect, the most dangerous case, by every policy.
 */
import { z } from "zod";
import { EFFECTS, type Effect } from "../../sandbox/shared/tool-vocabulary.js";
import type { SourceKind } from "../registry/source.js";

export const EffectDecision = z.enum(["allow", "ask", "deny"]);
export type EffectDecision = z.infer<typeof EffectDecision>;

const PerEffect = z.partialRecord(z.enum(EFFECTS), EffectDecision);

export const EffectPolicy = z.strictObject({
  plugin: PerEffect.optional(),
  agent: PerEffect.optional(),
  host: PerEffect.optional(),
});
export type EffectPolicy = z.infer<typeof EffectPolicy>;
export type ResolvedEffectPolicy = Record<SourceKind, Record<Effect, EffectDecision>>;

function every(decision: EffectDecision): Record<Effect, EffectDecision> {
  return Object.fromEntries(EFFECTS.map((effect) => [effect, decision])) as Record<Effect, EffectDecision>;
}

/**
 * Plugin and agent tools run pure by default: any effect needs the embedding
 * program's say-so through the gate, except `ask_user`: a question goes to
 * the person it would ask for approval, who answers it or declines (and is
 * told which tool of which source asks). `host:` tools are the embedding
 * program's own registrations, so their effects are allowed.
 */
export const EFFECT_POLICY_DEFAULTS: ResolvedEffectPolicy = {
  plugin: { ...every("ask"), ask_user: "allow" },
  agent: { ...every("ask"), ask_user: "allow" },
  host: every("allow"),
  // A Code Mode script declares no effects and reaches nothing itself: each
  // tool it calls is judged as that tool's own call. Not configurable.
  code: every("deny"),
};

export function resolveEffectPolicy(policy: EffectPolicy | undefined): ResolvedEffectPolicy {
  return {
    plugin: { ...EFFECT_POLICY_DEFAULTS.plugin, ...policy?.plugin },
    agent: { ...EFFECT_POLICY_DEFAULTS.agent, ...policy?.agent },
    host: { ...EFFECT_POLICY_DEFAULTS.host, ...policy?.host },
    code: EFFECT_POLICY_DEFAULTS.code,
  };
}

const STRICTNESS: Record<EffectDecision, number> = { allow: 0, ask: 1, deny: 2 };
const KNOWN: ReadonlySet<string> = new Set(EFFECTS);

/** The effects a policy must judge: all of them when the declaration is missing or names an unknown one. */
export function effectsToJudge(declared: readonly string[] | null): readonly Effect[] {
  if (declared === null || declared.some((effect) => !KNOWN.has(effect))) return EFFECTS;
  return declared as Effect[];
}

export function decideEffects(policy: ResolvedEffectPolicy, kind: SourceKind, declared: readonly string[] | null): EffectDecision {
  let decision: EffectDecision = "allow";
  for (const effect of effectsToJudge(declared)) {
    const next = policy[kind][effect];
    if (STRICTNESS[next] > STRICTNESS[decision]) decision = next;
  }
  return decision;
}
