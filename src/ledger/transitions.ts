/**
 * @module src/ledger/transitions
 * The state machine of a source, as pure functions from its current state
 * (and what just happened) to the next state and the audit events of the
 * change. Stores run them inside their write transaction, so every change is
 * decided on the very state it replaces, even when another process changed
 * that state a moment before.
 *
 * ```
 *   active ──N strikes in window (policy)──▶ quarantined   event: quarantine
 *   any    ──operator quarantines──────────▶ quarantined   event: manual_quarantine
 *   quarantined ──operator releases────────▶ active        event: release
 *   quarantined ──`until` passed, seen late▶ active        event: expire
 * ```
 *
 * Strikes from before a source last became active do not count again: a
 * release or an expiry forgives them, or a released source would go straight
 * back into quarantine on its next strike.
 */
import { decideQuarantine, describeWindow, type QuarantinePolicy } from "./policy.js";
import { MAX_MESSAGE_CHARS, POLICY_ACTOR, isStrike, type ActiveState, type CallRecord, type LedgerEvent, type QuarantinedState, type SourceState } from "./types.js";

/** A change of state: the state that replaces the stored one and the events that tell of it, oldest first. */
export type Transition = { state: SourceState; events: LedgerEvent[] };

export function initialState(source: string): ActiveState {
  return { source, state: "active", since: null };
}

export function isExpired(state: SourceState, now: number): state is QuarantinedState & { until: number } {
  return state.state === "quarantined" && state.until !== null && state.until <= now;
}

/** Ends a quarantine whose time has passed; null when there is nothing to end. */
export function expire(state: SourceState, now: number): Transition | null {
  if (!isExpired(state, now)) return null;
  return {
    state: { source: state.source, state: "active", since: now },
    events: [{ at: now, source: state.source, kind: "expire", reason: `quarantine ended (${state.reason})`, until: state.until, actor: POLICY_ACTOR }],
  };
}

/**
 * After a call was counted: expires a quarantine that is over, then applies
 * the policy if the call was a strike. `strikeTimes` are the times of the
 * source's latest strikes, this call's among them.
 */
export function afterCall(state: SourceState, call: CallRecord, strikeTimes: readonly number[], now: number, policy: QuarantinePolicy): Transition | null {
  const expired = expire(state, now);
  const current = expired?.state ?? state;
  const events = expired?.events ?? [];
  if (isStrike(call.outcome) && current.state === "active") {
    const forgivenBefore = current.since;
    const counted = forgivenBefore === null ? strikeTimes : strikeTimes.filter((at) => at >= forgivenBefore);
    const decision = decideQuarantine(counted, now, policy);
    if (decision.quarantine) {
      const last = `the last a ${call.outcome} in ${call.tool}${call.message === undefined ? "" : `: ${call.message}`}`;
      const reason = `${decision.strikesInWindow} strikes within ${describeWindow(policy.windowMs)}, ${last}`.slice(0, MAX_MESSAGE_CHARS);
      const quarantined: QuarantinedState = { source: call.source, state: "quarantined", since: now, until: decision.until, reason, actor: POLICY_ACTOR };
      events.push({ at: now, source: call.source, kind: "quarantine", reason, until: decision.until, actor: POLICY_ACTOR });
      return { state: quarantined, events };
    }
  }
  return expired;
}

export type ManualQuarantine = { reason: string; until: number | null; actor: string };

/** An operator's quarantine always applies: on a quarantined source it replaces the terms. */
export function quarantineByHand(state: SourceState, request: ManualQuarantine, now: number): Transition {
  const { source } = state;
  return {
    state: { source, state: "quarantined", since: now, until: request.until, reason: request.reason, actor: request.actor },
    events: [{ at: now, source, kind: "manual_quarantine", reason: request.reason, until: request.until, actor: request.actor }],
  };
}

/** Releases a quarantined source; null when it is active already, so a repeated release records nothing. */
export function releaseByHand(state: SourceState, request: { actor: string; reason: string }, now: number): Transition | null {
  if (state.state !== "quarantined") return null;
  const { source } = state;
  return {
    state: { source, state: "active", since: now },
    events: [{ at: now, source, kind: "release", reason: request.reason, until: null, actor: request.actor }],
  };
}
