/**
 * @module plugins/unit-convert/unit-convert.test
 * unit_convert through a real host: conversions of every kind against known
 * values, name spellings, and the errors for unknown or mismatched units.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";

// Tests run from dist/plugins/unit-convert/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/unit-convert", import.meta.url));

type Converted = { value: number; unit: string; kind: string; from: { value: number; unit: string }; to: { value: number; unit: string } };
type Call = (input: unknown) => Promise<ToolResult>;

async function withTool(fn: (call: Call) => Promise<void>): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: PLUGIN });
    assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
    await fn((input) => host.call("unit_convert", input));
  });
}

async function convert(call: Call, value: number, from: string, to: string): Promise<Converted> {
  const result = await call({ value, from, to });
  assert.equal(result.ok, true, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  return (result.ok ? result.structured : undefined) as Converted;
}

async function failure(call: Call, input: unknown): Promise<{ kind: string; message: string }> {
  const result = await call(input);
  assert.equal(result.ok, false, "the call should fail");
  return result.ok ? { kind: "ok", message: "" } : result.error;
}

function near(actual: number, expected: number, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${actual} is not close to ${expected}`);
}

describe("unit_convert plugin", { timeout: 60_000 }, () => {
  it("converts kilometres to miles with the full answer shape", async () => {
    await withTool(async (call) => {
      const result = await convert(call, 10, "km", "mi");
      near(result.value, 6.213711922373);
      assert.equal(result.unit, "mi");
      assert.equal(result.kind, "length");
      assert.deepEqual(result.from, { value: 10, unit: "km" });
      assert.deepEqual(result.to, { value: result.value, unit: "mi" });
    });
  });

  it("converts every kind against known values", async () => {
    await withTool(async (call) => {
      assert.equal((await convert(call, 1, "ft", "in")).value, 12);
      assert.equal((await convert(call, 1, "nmi", "m")).value, 1852);
      assert.equal((await convert(call, 1, "lb", "oz")).value, 16);
      assert.equal((await convert(call, 14, "lb", "st")).value, 1);
      assert.equal((await convert(call, 1, "gal", "qt")).value, 4);
      assert.equal((await convert(call, 3, "tsp", "tbsp")).value, 1);
      assert.equal((await convert(call, 1, "L", "fl oz")).value, 33.8140227018);
      assert.equal((await convert(call, 2, "d", "h")).value, 48);
      assert.equal((await convert(call, 1, "yr", "d")).value, 365.25);
      assert.equal((await convert(call, 1, "GiB", "MiB")).value, 1024);
      assert.equal((await convert(call, 1, "GB", "MB")).value, 1000);
      assert.equal((await convert(call, 1, "KiB", "bit")).value, 8192);
      assert.equal((await convert(call, 36, "km/h", "m/s")).value, 10);
      near((await convert(call, 60, "mph", "km/h")).value, 96.56064);
      near((await convert(call, 1, "kn", "km/h")).value, 1.852);
    });
  });

  it("converts temperatures with their offsets, exactly at the fixed points", async () => {
    await withTool(async (call) => {
      assert.equal((await convert(call, 100, "C", "F")).value, 212);
      assert.equal((await convert(call, 32, "F", "C")).value, 0);
      assert.equal((await convert(call, -40, "C", "F")).value, -40);
      assert.equal((await convert(call, 0, "K", "C")).value, -273.15);
      assert.equal((await convert(call, 98.6, "fahrenheit", "celsius")).value, 37);
      assert.equal((await convert(call, 25, "°C", "K")).value, 298.15);
    });
  });

  it("accepts full names, plurals and other casing, answering canonical symbols", async () => {
    await withTool(async (call) => {
      const result = await convert(call, 5, "Kilometers", "METERS");
      assert.equal(result.value, 5000);
      assert.deepEqual([result.from.unit, result.unit], ["km", "m"]);
      assert.equal((await convert(call, 2, " fluid ounces ", "tablespoons")).value, 4);
      assert.equal((await convert(call, 1, "mb", "kb")).unit, "KB");
    });
  });

  it("rounds away floating-point noise", async () => {
    await withTool(async (call) => {
      assert.equal((await convert(call, 0.3, "m", "cm")).value, 30);
      assert.equal((await convert(call, 1.1, "kg", "g")).value, 1100);
      // Tiny and huge results keep their 12 significant digits.
      assert.equal((await convert(call, 1, "nm", "km")).value, 1e-12);
      assert.equal((await convert(call, 123456789, "TB", "bit")).value, 9.87654312e20);
    });
  });

  it("names the units of the kind when the other unit is unknown", async () => {
    await withTool(async (call) => {
      const unknownTo = await failure(call, { value: 1, from: "km", to: "furlong" });
      assert.equal(unknownTo.kind, "tool_error");
      assert.match(unknownTo.message, /Unknown unit "furlong"/);
      assert.match(unknownTo.message, /length units are nm, µm, mm, cm, m, km, in, ft, yd, mi, nmi/);
      const unknownBoth = await failure(call, { value: 1, from: "zorks", to: "blips" });
      assert.match(unknownBoth.message, /Unknown unit "zorks"/);
      assert.match(unknownBoth.message, /speed: m\/s, km\/h, mph, kn, ft\/s/);
    });
  });

  it("refuses units of different kinds and temperatures below absolute zero", async () => {
    await withTool(async (call) => {
      const mismatch = await failure(call, { value: 1, from: "km", to: "kg" });
      assert.equal(mismatch.kind, "tool_error");
      assert.match(mismatch.message, /Cannot convert length \(km\) to mass \(kg\); length units are/);
      const frozen = await failure(call, { value: -300, from: "C", to: "K" });
      assert.match(frozen.message, /below absolute zero/);
      const huge = await failure(call, { value: 1e308, from: "km", to: "nm" });
      assert.match(huge.message, /too large/);
    });
  });

  it("rejects malformed input", async () => {
    await withTool(async (call) => {
      assert.equal((await failure(call, { value: "10", from: "km", to: "mi" })).kind, "invalid_input");
      assert.equal((await failure(call, { value: 10, from: "km" })).kind, "invalid_input");
      assert.equal((await failure(call, { value: 10, from: "", to: "mi" })).kind, "invalid_input");
    });
  });
});
