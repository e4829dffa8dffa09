/**
 * @module src/gate
 * Effect policy and the gate: whether a call may run.
 */
export { EffectPolicy, EffectDecision, EFFECT_POLICY_DEFAULTS, resolveEffectPolicy, decideEffects, effectsToJudge, type ResolvedEffectPolicy } from "./effect-policy.js";
export { GateDecision, askGate, defaultGate, judgeGate, type BeforeToolCall, type AskUser, type GateCall, type GateContext } from "./gate.js";
export { approvalQuestion, deferredToUses, policyAdvice, type ApprovalSubject } from "./approval.js";
