/**
 * @module plugins/date-math/date-math.test
 * date_math through a real host: month-end clamping, leap years, offsets,
 * differences, and the dates it must refuse.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";

// Tests run from dist/plugins/date-math/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/date-math", import.meta.url));

type Diff = { days: number; hours: number; minutes: number; seconds: number; milliseconds: number };
type Answer = { result: string; weekday: string; dayOfYear: number; isLeapYear: boolean; diff?: Diff };
type Call = (input: unknown) => Promise<ToolResult>;

async function withTool(fn: (call: Call) => Promise<void>): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: PLUGIN });
    assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
    await fn((input) => host.call("date_math", input));
  });
}

async function answer(call: Call, input: unknown): Promise<Answer> {
  const result = await call(input);
  assert.equal(result.ok, true, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  return (result.ok ? result.structured : undefined) as Answer;
}

async function failure(call: Call, input: unknown): Promise<{ kind: string; message: string }> {
  const result = await call(input);
  assert.equal(result.ok, false, "the call should fail");
  return result.ok ? { kind: "ok", message: "" } : result.error;
}

describe("date_math plugin", { timeout: 60_000 }, () => {
  it("describes a date as it is", async () => {
    await withTool(async (call) => {
      assert.deepEqual(await answer(call, { date: "2024-03-01" }), {
        result: "2024-03-01T00:00:00.000Z",
        weekday: "Friday",
        dayOfYear: 61,
        isLeapYear: true,
      });
      const last = await answer(call, { date: "2023-12-31T23:59:59.999Z" });
      assert.equal(last.dayOfYear, 365);
      assert.equal(last.isLeapYear, false);
      assert.equal(last.weekday, "Sunday");
    });
  });

  it("clamps month arithmetic to the end of the month", async () => {
    await withTool(async (call) => {
      assert.equal((await answer(call, { date: "2024-01-31", add: { months: 1 } })).result, "2024-02-29T00:00:00.000Z");
      assert.equal((await answer(call, { date: "2023-01-31", add: { months: 1 } })).result, "2023-02-28T00:00:00.000Z");
      assert.equal((await answer(call, { date: "2024-03-31", add: { months: -1 } })).result, "2024-02-29T00:00:00.000Z");
      assert.equal((await answer(call, { date: "2024-02-29", add: { years: 1 } })).result, "2025-02-28T00:00:00.000Z");
      assert.equal((await answer(call, { date: "2024-11-15T10:20:30Z", add: { months: 14 } })).result, "2026-01-15T10:20:30.000Z");
      assert.equal((await answer(call, { date: "2024-01-15", add: { months: -13 } })).result, "2022-12-15T00:00:00.000Z");
    });
  });

  it("adds calendar units first, then exact durations, negative ones too", async () => {
    await withTool(async (call) => {
      // Jan 31 + 1 month = Feb 29, then + 1 day = Mar 1 (not Mar 2, as days-first would give).
      assert.equal((await answer(call, { date: "2024-01-31", add: { months: 1, days: 1 } })).result, "2024-03-01T00:00:00.000Z");
      const mixed = await answer(call, { date: "2024-12-31T22:00:00Z", add: { weeks: 1, hours: 3, minutes: -30, seconds: 15 } });
      assert.equal(mixed.result, "2025-01-08T00:30:15.000Z");
      assert.equal(mixed.dayOfYear, 8);
      assert.equal((await answer(call, { date: "2024-01-01", add: { days: -1 } })).result, "2023-12-31T00:00:00.000Z");
      assert.equal((await answer(call, { date: "2024-01-01", add: { hours: 1.5 } })).result, "2024-01-01T01:30:00.000Z");
    });
  });

  it("reads offsets and treats a time without one as UTC", async () => {
    await withTool(async (call) => {
      assert.equal((await answer(call, { date: "2024-06-01T12:00:00+02:00" })).result, "2024-06-01T10:00:00.000Z");
      assert.equal((await answer(call, { date: "2024-06-01T00:30-0530" })).result, "2024-06-01T06:00:00.000Z");
      assert.equal((await answer(call, { date: "2024-06-01T12:00" })).result, "2024-06-01T12:00:00.000Z");
      assert.equal((await answer(call, { date: "0044-03-15" })).result, "0044-03-15T00:00:00.000Z");
    });
  });

  it("measures the difference to a second date in whole units", async () => {
    await withTool(async (call) => {
      const later = await answer(call, { date: "2024-01-01T00:00:00Z", diffTo: "2024-01-02T12:30:45.500Z" });
      assert.deepEqual(later.diff, { days: 1, hours: 36, minutes: 2190, seconds: 131445, milliseconds: 131445500 });
      const earlier = await answer(call, { date: "2024-01-02T12:00:00Z", diffTo: "2024-01-01" });
      assert.deepEqual(earlier.diff, { days: -1, hours: -36, minutes: -2160, seconds: -129600, milliseconds: -129600000 });
      // The difference is measured from the result, after the addition.
      const afterAdd = await answer(call, { date: "2024-01-01", add: { days: 10 }, diffTo: "2024-01-11" });
      assert.deepEqual(afterAdd.diff, { days: 0, hours: 0, minutes: 0, seconds: 0, milliseconds: 0 });
      // 2024 is a leap year: 366 days.
      assert.equal((await answer(call, { date: "2024-01-01", diffTo: "2025-01-01" })).diff?.days, 366);
    });
  });

  it("refuses dates that do not exist or cannot be read", async () => {
    await withTool(async (call) => {
      const feb30 = await failure(call, { date: "2023-02-30" });
      assert.equal(feb30.kind, "tool_error");
      assert.match(feb30.message, /day 30 does not exist in 2023-02/);
      const free = await failure(call, { date: "next tuesday" });
      assert.match(free.message, /"next tuesday" in "date" is not a valid ISO 8601 date/);
      assert.match((await failure(call, { date: "2024-01-01T24:00:00Z" })).message, /time of day/);
      assert.match((await failure(call, { date: "2024-01-01", diffTo: "01/02/2024" })).message, /in "diffTo"/);
      assert.match((await failure(call, { date: "2024-01-01", add: { years: 300_000 } })).message, /outside the range/);
    });
  });

  it("rejects malformed input", async () => {
    await withTool(async (call) => {
      assert.equal((await failure(call, { date: "2024-01-01", add: { months: 1.5 } })).kind, "invalid_input");
      assert.equal((await failure(call, { date: "2024-01-01", add: { fortnights: 1 } })).kind, "invalid_input");
      assert.equal((await failure(call, { add: { days: 1 } })).kind, "invalid_input");
    });
  });
});
