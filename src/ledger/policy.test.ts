/**
 * @module src/ledger/policy.test
 * The quarantine rule and the state machine, as pure functions: no store,
 * no clock but numbers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_POLICY, QuarantinePolicy, UNTIL_RELEASED_POLICY, decideQuarantine, describeWindow } from "./policy.js";
import { MINUTE_MS, T0, makeCall } from "./testing/fixtures.js";
import { afterCall, expire, initialState, quarantineByHand, releaseByHand } from "./transitions.js";
import type { SourceState } from "./types.js";

describe("decideQuarantine", { timeout: 60_000 }, () => {
  it("defaults to 3 strikes within 10 minutes, for 15 minutes", () => {
    assert.deepEqual({ ...DEFAULT_POLICY }, { strikes: 3, windowMs: 10 * MINUTE_MS, quarantineMs: 15 * MINUTE_MS });
    assert.equal(UNTIL_RELEASED_POLICY.quarantineMs, null);
  });

  it("quarantines on the 3rd strike within the window, not the 2nd", () => {
    const now = T0 + 5 * MINUTE_MS;
    assert.deepEqual(decideQuarantine([T0, now], now, DEFAULT_POLICY), { quarantine: false, strikesInWindow: 2 });
    assert.deepEqual(decideQuarantine([T0, T0 + MINUTE_MS, now], now, DEFAULT_POLICY), { quarantine: true, strikesInWindow: 3, until: now + 15 * MINUTE_MS });
  });

  it("counts a strike exactly one window old, and not one a millisecond older", () => {
    const now = T0 + 10 * MINUTE_MS;
    assert.equal(decideQuarantine([T0, now, now], now, DEFAULT_POLICY).quarantine, true);
    assert.equal(decideQuarantine([T0 - 1, now, now], now, DEFAULT_POLICY).quarantine, false);
    assert.equal(decideQuarantine([T0 - 5 * MINUTE_MS, T0 - 1, T0 - 2], now, DEFAULT_POLICY).strikesInWindow, 0);
  });

  it("counts a strike stamped ahead of now (another clock) rather than hiding it", () => {
    assert.equal(decideQuarantine([T0 + 500, T0, T0], T0, DEFAULT_POLICY).quarantine, true);
  });

  it("quarantines with no end under the no-auto-release policy", () => {
    assert.deepEqual(decideQuarantine([T0, T0, T0], T0, UNTIL_RELEASED_POLICY), { quarantine: true, strikesInWindow: 3, until: null });
  });

  it("parses a policy strictly", () => {
    assert.equal(QuarantinePolicy.safeParse({ ...DEFAULT_POLICY, cooldown: 5 }).success, false);
    assert.equal(QuarantinePolicy.safeParse({ ...DEFAULT_POLICY, strikes: 0 }).success, false);
    assert.equal(QuarantinePolicy.safeParse({ ...DEFAULT_POLICY, quarantineMs: null }).success, true);
  });

  it("names windows in their unit", () => {
    assert.deepEqual([describeWindow(600_000), describeWindow(7_200_000), describeWindow(30_000), describeWindow(1_500)], ["10 min", "2 h", "30 s", "1500 ms"]);
  });
});

describe("source state transitions", { timeout: 60_000 }, () => {
  const quarantined = (until: number | null): SourceState => ({ source: "agent:alpha", state: "quarantined", since: T0, until, reason: "r", actor: "policy" });

  it("a strike that fills the window quarantines; an ok call or a tool error never does", () => {
    const strike = makeCall({ outcome: "crash", message: "boom", at: T0 });
    const change = afterCall(initialState("agent:alpha"), strike, [T0, T0, T0], T0, DEFAULT_POLICY);
    assert.equal(change?.state.state, "quarantined");
    assert.deepEqual(change?.events.map((e) => [e.kind, e.until, e.actor]), [["quarantine", T0 + 15 * MINUTE_MS, "policy"]]);
    for (const outcome of ["ok", "tool_error", "invalid_input", "blocked", "quarantined", "cancelled"] as const) {
      assert.equal(afterCall(initialState("agent:alpha"), makeCall({ outcome }), [T0, T0, T0], T0, DEFAULT_POLICY), null, outcome);
    }
  });

  it("a strike on a source already quarantined changes nothing", () => {
    assert.equal(afterCall(quarantined(null), makeCall({ outcome: "timeout" }), [T0, T0, T0, T0], T0, DEFAULT_POLICY), null);
  });

  it("a call after a quarantine's end expires it first, then may quarantine anew", () => {
    const now = T0 + 20 * MINUTE_MS;
    const change = afterCall(quarantined(T0 + 15 * MINUTE_MS), makeCall({ outcome: "timeout", at: now }), [now, now, now], now, DEFAULT_POLICY);
    assert.deepEqual(change?.events.map((e) => e.kind), ["expire", "quarantine"]);
    assert.equal(change?.state.state, "quarantined");
    assert.equal(change?.state.since, now);
  });

  it("strikes from before the source last became active are forgiven", () => {
    const active: SourceState = { source: "agent:alpha", state: "active", since: T0 + 100 };
    const now = T0 + 200;
    assert.equal(afterCall(active, makeCall({ outcome: "timeout", at: now }), [now, T0 + 50, T0 + 40], now, DEFAULT_POLICY), null);
    assert.equal(afterCall(active, makeCall({ outcome: "timeout", at: now }), [now, T0 + 150, T0 + 100], now, DEFAULT_POLICY)?.state.state, "quarantined");
  });

  it("expires only a timed quarantine whose end has come", () => {
    assert.equal(expire(quarantined(T0 + 10), T0 + 9), null);
    assert.equal(expire(quarantined(null), T0 + 1e12), null);
    assert.equal(expire(initialState("agent:alpha"), T0), null);
    const ended = expire(quarantined(T0 + 10), T0 + 10);
    assert.deepEqual(ended?.state, { source: "agent:alpha", state: "active", since: T0 + 10 });
    assert.deepEqual(ended?.events.map((e) => [e.kind, e.until]), [["expire", T0 + 10]]);
  });

  it("an operator's quarantine replaces the terms; a release of an active source is nothing", () => {
    const manual = quarantineByHand(quarantined(T0 + 5), { reason: "hold", until: null, actor: "ops" }, T0 + 1);
    assert.deepEqual(manual.state, { source: "agent:alpha", state: "quarantined", since: T0 + 1, until: null, reason: "hold", actor: "ops" });
    assert.equal(manual.events[0]?.kind, "manual_quarantine");
    assert.equal(releaseByHand(initialState("agent:alpha"), { actor: "ops", reason: "x" }, T0), null);
    assert.deepEqual(releaseByHand(manual.state, { actor: "ops", reason: "fixed" }, T0 + 2)?.events.map((e) => [e.kind, e.reason, e.until]), [["release", "fixed", null]]);
  });
});
