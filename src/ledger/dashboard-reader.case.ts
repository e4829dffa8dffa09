/**
 * @module src/ledger/dashboard-reader.case
 * The one suite every DashboardReader must pass, run by sqlite/dashboard.test.ts
 * and postgres/dashboard.test.ts: each test writes a fresh ledger through the
 * real Ledger, then reads it with the store's reader: the order of trouble,
 * pages, search, a quarantine past its end, the strike timeline, one
 * source's detail, and a version that moves when another writer commits.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DashboardReader } from "./dashboard-reader.js";
import { Ledger } from "./ledger.js";
import { MINUTE_MS, T0, makeCall, manualClock, versionOf } from "./testing/fixtures.js";

/** A fresh, empty place for one test's ledger: what `new Ledger({ store })` takes, and its reader (opened once the ledger exists). */
export type ReaderTarget = { store: string; openReader(): Promise<DashboardReader> };

const page = { offset: 0, limit: 10 };
const NEVER = { strikes: 1_000, windowMs: MINUTE_MS, quarantineMs: null };

export function runDashboardReaderSuite(name: string, nextTarget: () => ReaderTarget): void {
  async function withReader(target: ReaderTarget, fn: (reader: DashboardReader) => Promise<void>): Promise<void> {
    const reader = await target.openReader();
    try {
      await fn(reader);
    } finally {
      await reader.close();
    }
    assert.equal(reader.alive, false);
  }

  describe(`${name}: the DashboardReader contract`, { timeout: 120_000 }, () => {
    it("lists sources by trouble, a page at a time, with search and the state as it is now", async () => {
      const target = nextTarget();
      const clock = manualClock();
      const ledger = new Ledger({ store: target.store, now: clock.now, policy: NEVER });
      for (let i = 0; i < 4; i++) await ledger.record(makeCall({ source: "agent:calm", outcome: "ok" }));
      for (let i = 0; i < 2; i++) await ledger.record(makeCall({ source: "agent:flaky", outcome: i === 0 ? "timeout" : "ok" }));
      await ledger.record(makeCall({ source: "agent:worst", outcome: "crash" }));
      await ledger.record(makeCall({ source: "agent:worst", outcome: "memory" }));
      await ledger.quarantine("agent:calm", { reason: "by hand", actor: "ops" });
      await ledger.quarantine("agent:flaky", { reason: "for a while", actor: "ops", until: T0 + 10 * MINUTE_MS });
      await ledger.close();
      await withReader(target, async (reader) => {
        const now = T0 + 20 * MINUTE_MS;
        const first = await reader.sourcesPage({ ...page, now });
        assert.equal(first.total, 3);
        // calm is quarantined; flaky's quarantine ended, so it sorts by strikes like any active source.
        assert.deepEqual(first.rows.map((row) => [row.source, row.state.state, row.strikes, row.calls, row.tools]), [
          ["agent:calm", "quarantined", 0, 4, 1],
          ["agent:worst", "active", 2, 2, 1],
          ["agent:flaky", "active", 1, 2, 1],
        ]);
        assert.equal(first.rows[2]?.state.since, T0 + 10 * MINUTE_MS, "active since its quarantine ended");
        assert.equal(first.rows[2]?.strikeRate, 0.5);
        assert.equal(first.rows[0]?.lastCallAt, T0);
        const second = await reader.sourcesPage({ offset: 1, limit: 1, now });
        assert.deepEqual(second.rows.map((row) => row.source), ["agent:worst"]);
        assert.equal(second.total, 3);
        const found = await reader.sourcesPage({ ...page, now, search: "FLA" });
        assert.deepEqual(found.rows.map((row) => row.source), ["agent:flaky"]);
        assert.equal(found.total, 1);
        assert.deepEqual(await reader.totals(now), { sources: 3, quarantined: 1, calls: 8, strikes: 3, errors: 3 });
        // Before flaky's quarantine ends, it counts as quarantined.
        assert.deepEqual(await reader.totals(T0 + 5 * MINUTE_MS), { sources: 3, quarantined: 2, calls: 8, strikes: 3, errors: 3 });
      });
    });

    it("counts every non-ok call: a tool that failed 4 of its 12 calls is at 33 %, ranks above the healthy, and shows its versions and latest errors", async () => {
      const target = nextTarget();
      const ledger = new Ledger({ store: target.store, policy: NEVER });
      const v1 = makeCall().version;
      const v2 = versionOf(2);
      for (let i = 0; i < 12; i++) {
        const failed = i % 3 === 2;
        await ledger.record(makeCall({ source: "agent:flaky", tool: "parse", version: i < 6 ? v1 : v2, at: T0 + i, ...(failed ? { outcome: "tool_error", message: `bad row ${i}` } : {}) }));
      }
      await ledger.record(makeCall({ source: "agent:flaky", tool: "fine", at: T0 }));
      for (let i = 0; i < 30; i++) await ledger.record(makeCall({ source: "agent:healthy", at: T0 + i }));
      await ledger.record(makeCall({ source: "agent:blocked", outcome: "blocked", message: "the gate said no", at: T0 }));
      for (let i = 0; i < 3; i++) await ledger.record(makeCall({ source: "agent:blocked", at: T0 }));
      await ledger.close();
      await withReader(target, async (reader) => {
        const sources = await reader.sourcesPage({ ...page, now: T0 });
        assert.deepEqual(sources.rows.map((row) => [row.source, row.errors, row.calls]), [["agent:flaky", 4, 13], ["agent:blocked", 1, 4], ["agent:healthy", 0, 30]]);
        assert.equal(sources.rows[0]?.errorRate, 4 / 13);
        assert.deepEqual(await reader.totals(T0), { sources: 3, quarantined: 0, calls: 47, strikes: 0, errors: 5 });
        const detail = await reader.sourceDetail("agent:flaky", { now: T0, tools: page, strikes: page, events: page });
        const [parse, fine] = detail?.tools.rows ?? [];
        assert.deepEqual([parse?.tool, parse?.calls, parse?.errors, Math.round((parse?.errorRate ?? 0) * 100), parse?.outcomes], ["parse", 12, 4, 33, { ok: 8, tool_error: 4 }]);
        assert.deepEqual(parse?.versions.map((v) => [v.version, v.calls, v.errors, v.strikes]), [[v2, 6, 2, 0], [v1, 6, 2, 0]], "newest version first");
        assert.deepEqual(parse?.lastErrors.map((error) => [error.outcome, error.message]), [["tool_error", "bad row 11"], ["tool_error", "bad row 8"], ["tool_error", "bad row 5"], ["tool_error", "bad row 2"]]);
        assert.deepEqual([fine?.tool, fine?.errorRate, fine?.lastErrors, fine?.versions.length], ["fine", 0, [], 1]);
        const second = await reader.sourceDetail("agent:flaky", { now: T0, tools: { offset: 1, limit: 1 }, strikes: page, events: page });
        assert.deepEqual(second?.tools.rows.map((tool) => [tool.tool, tool.versions.length, tool.lastErrors.length]), [["fine", 1, 0]], "a page's tools have their own counts");
      });
    });

    it("breaks ties by code point, and searches for text, not for a pattern", async () => {
      const target = nextTarget();
      const ledger = new Ledger({ store: target.store, policy: NEVER });
      for (const source of ["agent:b", "agent:B", "agent:a_b", "agent:axb", "agent:a%"]) await ledger.record(makeCall({ source }));
      await ledger.close();
      await withReader(target, async (reader) => {
        const all = await reader.sourcesPage({ ...page, now: T0 });
        // A locale's collation would put "agent:b" next to "agent:B"; code points put upper case first.
        assert.deepEqual(all.rows.map((row) => row.source), ["agent:B", "agent:a%", "agent:a_b", "agent:axb", "agent:b"]);
        assert.deepEqual((await reader.sourcesPage({ ...page, now: T0, search: "a_b" })).rows.map((row) => row.source), ["agent:a_b"]);
        assert.deepEqual((await reader.sourcesPage({ ...page, now: T0, search: "a%" })).rows.map((row) => row.source), ["agent:a%"]);
      });
    });

    it("counts strikes per bucket for a page's sources and for all, beyond the strikes kept with messages", async () => {
      const target = nextTarget();
      const clock = manualClock();
      // Two strikes within 1 ms would quarantine: strikes a minute apart never do, and 2 are kept with their messages.
      const ledger = new Ledger({ store: target.store, now: clock.now, policy: { strikes: 2, windowMs: 1, quarantineMs: null }, recentStrikes: 2 });
      // 12 strikes, one a minute: more than the 2 kept with their messages.
      for (let i = 0; i < 12; i++) await ledger.record(makeCall({ source: "agent:a", outcome: "timeout", at: T0 + i * MINUTE_MS }));
      await ledger.record(makeCall({ source: "agent:b", outcome: "crash", at: T0 + 5 * MINUTE_MS + 30_000 }));
      await ledger.record(makeCall({ source: "agent:b", outcome: "ok", at: T0 + 6 * MINUTE_MS }));
      await ledger.close();
      await withReader(target, async (reader) => {
        const window = { to: T0 + 12 * MINUTE_MS, bucketMs: 4 * MINUTE_MS, buckets: 3 };
        const series = await reader.timelines({ ...window, sources: ["agent:a", "agent:b", "agent:none"] });
        assert.deepEqual(series.get("agent:a"), [4, 4, 4]);
        assert.deepEqual(series.get("agent:b"), [0, 1, 0]);
        assert.deepEqual(series.get("agent:none"), [0, 0, 0]);
        assert.deepEqual((await reader.timelines({ ...window, sources: null })).get(null), [4, 5, 4]);
        assert.deepEqual((await reader.timelines({ ...window, sources: [] })).size, 0);
        const detail = await reader.sourceDetail("agent:a", { now: T0, tools: page, strikes: page, events: page });
        assert.equal(detail?.strikes.total, 2, "the strikes table keeps only the latest, the timeline keeps counting");
      });
    });

    it("reads one source's tools, strikes and events in pages, and null for a source never seen", async () => {
      const target = nextTarget();
      const clock = manualClock();
      const ledger = new Ledger({ store: target.store, now: clock.now, policy: NEVER });
      for (const tool of ["t1", "t2", "t3"]) await ledger.record(makeCall({ tool, outcome: tool === "t2" ? "crash" : "ok", wallMs: 4, message: "<b>boom</b>" }));
      await ledger.record(makeCall({ tool: "t1", outcome: "ok", wallMs: 8 }));
      await ledger.quarantine("agent:alpha", { reason: "one", actor: "ops" });
      await ledger.release("agent:alpha", { reason: "two", actor: "ops" });
      await ledger.close();
      await withReader(target, async (reader) => {
        const detail = await reader.sourceDetail("agent:alpha", { now: T0, tools: { offset: 1, limit: 1 }, strikes: page, events: { offset: 0, limit: 1 } });
        assert.ok(detail !== null);
        assert.equal(detail.versions, 1);
        assert.equal(detail.tools.total, 3);
        assert.deepEqual(detail.tools.rows.map((tool) => tool.tool), ["t1"], "second by trouble: t2 (a strike), t1 (2 calls), t3");
        assert.equal(detail.tools.rows[0]?.meanWallMs, 6);
        assert.deepEqual(detail.tools.rows[0]?.outcomes, { ok: 2 });
        assert.deepEqual(detail.strikes.rows.map((strike) => [strike.tool, strike.message]), [["t2", "<b>boom</b>"]]);
        assert.equal(detail.events.total, 2);
        assert.deepEqual(detail.events.rows.map((event) => [event.kind, event.actor, event.reason]), [["release", "ops", "two"]]);
        assert.equal(await reader.sourceDetail("agent:never", { now: T0, tools: page, strikes: page, events: page }), null);
      });
    });

    it("changes its version when another writer commits a strike or a quarantine", async () => {
      const target = nextTarget();
      const ledger = new Ledger({ store: target.store, policy: NEVER });
      try {
        await ledger.record(makeCall());
        await withReader(target, async (reader) => {
          const before = await reader.version();
          await ledger.record(makeCall({ outcome: "timeout" }));
          const afterStrike = await reader.version();
          assert.notEqual(afterStrike, before);
          await ledger.quarantine("agent:alpha", { reason: "by hand", actor: "ops" });
          assert.notEqual(await reader.version(), afterStrike);
        });
      } finally {
        await ledger.close();
      }
    });

    it("refuses use after close", async () => {
      const target = nextTarget();
      const ledger = new Ledger({ store: target.store });
      await ledger.record(makeCall());
      await ledger.close();
      const reader = await target.openReader();
      await reader.close();
      await assert.rejects(reader.totals(T0), (error: unknown) => (error as { code?: string }).code === "ledger_closed");
      await assert.rejects(reader.version(), (error: unknown) => (error as { code?: string }).code === "ledger_closed");
    });
  });
}

/**
 * Reads a ledger of a million calls that a test seeded: `sources` sources
 * `agent:bulk-NNNNN` of 50 calls each, source i with i % 10 strikes one a
 * minute back from T0. Checks what a page, the last page, the totals and
 * both timelines answer, and prints how long they took together.
 */
export async function readMillionCalls(reader: DashboardReader, sources: number, label: string): Promise<void> {
  const started = performance.now();
  const first = await reader.sourcesPage({ offset: 0, limit: 25, now: T0 });
  const last = await reader.sourcesPage({ offset: sources - 5, limit: 25, now: T0 });
  const totals = await reader.totals(T0);
  const series = await reader.timelines({ to: T0 + MINUTE_MS, bucketMs: MINUTE_MS, buckets: 60, sources: first.rows.map((row) => row.source) });
  const all = await reader.timelines({ to: T0 + MINUTE_MS, bucketMs: MINUTE_MS, buckets: 60, sources: null });
  const elapsedMs = performance.now() - started;
  assert.equal(first.total, sources);
  assert.equal(first.rows.length, 25);
  assert.ok(first.rows.every((row) => row.strikes === 9), "most strikes first");
  assert.equal(last.rows.length, 5);
  assert.ok(last.rows.every((row) => row.strikes === 0));
  assert.equal(totals.calls, sources * 50);
  assert.equal(series.get(first.rows[0]?.source ?? "")?.reduce((a, b) => a + b, 0), 9);
  assert.equal(all.get(null)?.reduce((a, b) => a + b, 0), (sources / 10) * 45);
  // Reported, not asserted: speed belongs to the bench.
  console.log(`# ${label}: a page, the last page, totals and timelines of a ledger of ${sources * 50} calls over ${sources} sources: ${elapsedMs.toFixed(1)} ms`);
}
