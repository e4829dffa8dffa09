/**
 * @module src/ledger/policy
 * The quarantine policy: how many strikes within what window put a source in
 * quarantine, and for how long. A schema, its defaults, and one pure
 * decision function, so the rule can be tested without a store or a clock.
 */
import { z } from "zod";

export const QuarantinePolicy = z.strictObject({
  /** Strikes within the window that quarantine a source. */
  strikes: z.number().int().min(1).max(1_000),
  /** How far back strikes count, ending now (inclusive). */
  windowMs: z.number().int().positive(),
  /** How long a quarantine lasts; null: until an operator releases it. */
  quarantineMs: z.number().int().positive().nullable(),
});
export type QuarantinePolicy = z.infer<typeof QuarantinePolicy>;

/** 3 strikes within 10 minutes quarantine a source for 15 minutes. */
export const DEFAULT_POLICY: Readonly<QuarantinePolicy> = Object.freeze({
  /** @default 3 */
  strikes: 3,
  /** @default 600000 (10 minutes) */
  windowMs: 10 * 60_000,
  /** @default 900000 (15 minutes) */
  quarantineMs: 15 * 60_000,
});

/** The default rule, but a quarantined source stays out until an operator releases it. */
export const UNTIL_RELEASED_POLICY: Readonly<QuarantinePolicy> = Object.freeze({ ...DEFAULT_POLICY, quarantineMs: null });

export type QuarantineDecision =
  | { quarantine: false; strikesInWindow: number }
  | { quarantine: true; strikesInWindow: number; until: number | null };

/**
 * Whether strikes at `strikeTimes` (any order; each one counted once) make
 * the policy quarantine a source at `now`. A strike stamped after `now`
 * (another process's clock ahead of ours) counts as if it were now, so
 * clock skew cannot hide a strike.
 */
export function decideQuarantine(strikeTimes: readonly number[], now: number, policy: QuarantinePolicy): QuarantineDecision {
  const windowStart = now - policy.windowMs;
  const strikesInWindow = strikeTimes.filter((at) => at >= windowStart).length;
  if (strikesInWindow < policy.strikes) return { quarantine: false, strikesInWindow };
  return { quarantine: true, strikesInWindow, until: policy.quarantineMs === null ? null : now + policy.quarantineMs };
}

export function describeWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}
