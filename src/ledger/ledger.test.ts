/**
 * @module src/ledger/ledger.test
 * The Ledger's own surface, on the memory store: options parsed strictly,
 * records checked at the boundary, misuse answered with typed errors, and
 * every committed change told to onEvent.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CorralError } from "../errors.js";
import { InvalidCallRecordError, LedgerClosedError } from "./errors.js";
import { Ledger, recordOwnCall } from "./ledger.js";
import { MemoryLedgerStore } from "./memory/store.js";
import { MAX_MESSAGE_CHARS, type LedgerEvent } from "./types.js";
import { MINUTE_MS, T0, makeCall, manualClock } from "./testing/fixtures.js";

const code = (expected: string) => (error: unknown) => error instanceof CorralError && error.code === expected;

describe("Ledger", { timeout: 60_000 }, () => {
  it("parses its options strictly and merges a partial policy over the default", async () => {
    assert.throws(() => new Ledger({ store: false, strikes: 3 } as never), code("invalid_options"));
    assert.throws(() => new Ledger({ store: false, policy: { strikes: 2, cooldownMs: 5 } as never }), code("invalid_options"));
    assert.throws(() => new Ledger({ store: 42 as never }), code("invalid_options"));
    const closed = new MemoryLedgerStore();
    await closed.close();
    assert.throws(() => new Ledger({ store: closed }), /closed already.*\[invalid_options\]/);
    const ledger = new Ledger({ store: false, policy: { strikes: 2 } });
    assert.deepEqual(ledger.policy, { strikes: 2, windowMs: 10 * MINUTE_MS, quarantineMs: 15 * MINUTE_MS });
    await ledger.close();
  });

  it("applies its policy: 2 strikes when told so", async () => {
    const clock = manualClock();
    await using ledger = new Ledger({ store: false, now: clock.now, policy: { strikes: 2, quarantineMs: MINUTE_MS } });
    await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
    const second = await ledger.record(makeCall({ outcome: "timeout", at: clock.now() }));
    assert.equal(second.quarantined?.until, T0 + MINUTE_MS);
  });

  it("checks a record at the boundary, stamps it with the clock and caps its message", async () => {
    const clock = manualClock(T0 + 123);
    await using ledger = new Ledger({ store: false, now: clock.now });
    const { at: _dropped, ...withoutAt } = makeCall({ outcome: "crash", message: "x".repeat(5_000) });
    await ledger.record(withoutAt);
    const report = await ledger.sourceReport("agent:alpha");
    assert.equal(report?.totals.lastCallAt, T0 + 123);
    assert.equal(report?.strikes[0]?.message.length, MAX_MESSAGE_CHARS);
    await assert.rejects(ledger.record(makeCall({ version: "abc" })), InvalidCallRecordError);
    await assert.rejects(ledger.record(makeCall({ source: "someone" })), code("invalid_call_record"));
    await assert.rejects(ledger.record(makeCall({ outcome: "exploded" as never })), code("invalid_call_record"));
    await assert.rejects(ledger.record({ ...makeCall(), extra: 1 } as never), code("invalid_call_record"));
    await assert.rejects(ledger.record(makeCall({ wallMs: -1 })), code("invalid_call_record"));
    assert.equal((await ledger.sourceReport("agent:alpha"))?.totals.calls, 1, "refused records count nothing");
  });

  it("records the host's own call (recordOwnCall) as record would, stamped by its clock, its message capped, counted once", async () => {
    const clock = manualClock(T0 + 456);
    const ledger = new Ledger({ store: false, now: clock.now, policy: { strikes: 2 } });
    const { at: _dropped, ...own } = makeCall({ outcome: "timeout", message: "y".repeat(5_000) });
    const first = await recordOwnCall(ledger, own, false);
    assert.equal(first.strike, true);
    const second = await recordOwnCall(ledger, { ...own, callId: "call-2" }, true);
    assert.equal(second.quarantined?.source, "agent:alpha", "its strikes count toward the policy as any record's");
    const report = await ledger.sourceReport("agent:alpha");
    assert.equal(report?.totals.calls, 2);
    assert.equal(report?.totals.lastCallAt, T0 + 456);
    assert.equal(report?.strikes[0]?.message.length, MAX_MESSAGE_CHARS);
    await ledger.close();
    await assert.rejects(recordOwnCall(ledger, own, false), LedgerClosedError, "a closed ledger rejects; it does not throw");
  });

  it("refuses malformed source ids and operator requests", async () => {
    const clock = manualClock();
    await using ledger = new Ledger({ store: false, now: clock.now });
    await assert.rejects(ledger.check("not a source"), code("invalid_source"));
    await assert.rejects(ledger.quarantine("agent:a", { reason: "", actor: "ops" }), code("invalid_options"));
    await assert.rejects(ledger.quarantine("agent:a", { reason: "r", actor: "ops", until: clock.now() }), /not after now.*\[invalid_options\]/);
    await assert.rejects(ledger.release("agent:a", { actor: "" }), code("invalid_options"));
    await assert.rejects(ledger.release("agent:a", { actor: "ops", force: true } as never), code("invalid_options"));
    assert.deepEqual(await ledger.summary(), [], "refused requests change nothing");
  });

  it("tells onEvent of every change it commits, an expiry found by check included", async () => {
    const clock = manualClock();
    const told: LedgerEvent[] = [];
    await using ledger = new Ledger({ store: false, now: clock.now, onEvent: (event) => told.push(event) });
    for (let i = 0; i < 3; i++) await ledger.record(makeCall({ outcome: "memory", at: clock.now() }));
    clock.advance(15 * MINUTE_MS);
    await ledger.check("agent:alpha");
    await ledger.quarantine("agent:alpha", { reason: "again", actor: "ops" });
    await ledger.release("agent:alpha", { actor: "ops" });
    await ledger.release("agent:alpha", { actor: "ops" });
    assert.deepEqual(told.map((e) => e.kind), ["quarantine", "expire", "manual_quarantine", "release"]);
  });

  it("is closed by close() and by asyncDispose, and refuses use afterwards", async () => {
    const store = new MemoryLedgerStore();
    const ledger = new Ledger({ store });
    assert.equal(ledger.alive, true);
    await ledger[Symbol.asyncDispose]();
    await ledger.close();
    assert.equal(ledger.alive, false);
    assert.equal(store.alive, false, "the ledger closes the store it was handed");
    const closed = (error: unknown) => error instanceof LedgerClosedError && error.code === "ledger_closed";
    await assert.rejects(ledger.record(makeCall()), closed);
    await assert.rejects(ledger.check("agent:alpha"), closed);
    await assert.rejects(ledger.quarantine("agent:alpha", { reason: "r", actor: "a" }), closed);
    await assert.rejects(ledger.release("agent:alpha", { actor: "a" }), closed);
    await assert.rejects(ledger.summary(), closed);
    await assert.rejects(ledger.sourceReport("agent:alpha"), closed);
  });
});
