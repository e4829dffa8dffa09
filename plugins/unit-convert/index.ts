/**
 * @module plugins/unit-convert
 * The `unit_convert` tool: converts a value between two units of one kind.
 * The unit table lives in units.ts; this file owns the tool's contract and
 * its error messages, which list the units the caller could have used.
 */
import { defineTool } from "corral";
import { z } from "zod";
import { findUnit, KINDS, symbolsOf, type Kind, type Unit } from "./units.js";

/** Results are rounded to 12 significant digits: enough for any measurement, and 0.1 + 0.2 noise disappears. */
const SIGNIFICANT_DIGITS = 12;

/**
 * Rounds `x` to SIGNIFICANT_DIGITS relative to `magnitude`, the largest term
 * it was computed from. For temperatures that is not `x` itself: 32 F is
 * 273.15 - 273.15 in kelvin terms, and the noise left is relative to 273.15.
 * The rounded value is rebuilt from decimal text, so it is the double nearest
 * to the decimal answer (37, not 37.00000000000001).
 */
function roundSignificant(x: number, magnitude: number): number {
  if (x === 0 || magnitude === 0 || !Number.isFinite(x)) return x;
  const exponent = Math.floor(Math.log10(magnitude)) - (SIGNIFICANT_DIGITS - 1);
  return Number(`${Math.round(x / 10 ** exponent)}e${exponent}`) + 0;
}

function supported(kind: Kind): string {
  return `${kind} units are ${symbolsOf(kind).join(", ")}`;
}

function resolve(name: string, role: "from" | "to", other: Unit | undefined): Unit {
  const unit = findUnit(name);
  if (unit !== undefined) return unit;
  const hint = other !== undefined ? supported(other.kind) : `supported units: ${KINDS.map((k) => `${k}: ${symbolsOf(k).join(", ")}`).join("; ")}`;
  throw new Error(`Unknown unit "${name}" in "${role}"; ${hint}`);
}

function toBase(value: number, unit: Unit): number {
  return (value + (unit.offset ?? 0)) * unit.factor;
}

export default defineTool({
  name: "unit_convert",
  description:
    "Convert a number between units of the same kind: length (mm, cm, m, km, in, ft, yd, mi, nmi, ...), mass " +
    "(mg, g, kg, t, oz, lb, st), volume (mL, L, m3, tsp, tbsp, fl oz, cup, pt, qt, gal as US measures, imp gal), " +
    "temperature (C, F, K), time (ns ... s, min, h, d, wk, yr = 365.25 d), data size (bit, B, KB, MB, GB, TB as " +
    "powers of 1000; KiB, MiB, GiB, TiB as powers of 1024) and speed (m/s, km/h, mph, kn, ft/s). Full names such " +
    'as "kilometers" or "fahrenheit" work too. The result is rounded to 12 significant digits. Unknown units, and ' +
    "units of different kinds, fail with a message listing the supported units.",
  input: z.strictObject({
    value: z.number().describe("The quantity to convert, in the `from` unit."),
    from: z.string().min(1).describe('The unit of `value`, e.g. "km", "lb", "F", "MiB".'),
    to: z.string().min(1).describe('The unit to convert to, of the same kind as `from`, e.g. "mi".'),
  }),
  effects: [],
  run({ value, from, to }) {
    const fromUnit = resolve(from, "from", findUnit(to));
    const toUnit = resolve(to, "to", fromUnit);
    if (fromUnit.kind !== toUnit.kind) {
      throw new Error(
        `Cannot convert ${fromUnit.kind} (${fromUnit.symbol}) to ${toUnit.kind} (${toUnit.symbol}); ${supported(fromUnit.kind)}`,
      );
    }
    const base = toBase(value, fromUnit);
    if (fromUnit.kind === "temperature" && base < 0) {
      throw new Error(`${value} ${fromUnit.symbol} is below absolute zero (0 K), so it is not a temperature`);
    }
    const scaled = base / toUnit.factor;
    const converted = roundSignificant(scaled - (toUnit.offset ?? 0), Math.max(Math.abs(scaled), toUnit.offset ?? 0));
    if (!Number.isFinite(converted)) throw new Error(`${value} ${fromUnit.symbol} in ${toUnit.symbol} is too large for a number`);
    return {
      value: converted,
      unit: toUnit.symbol,
      kind: toUnit.kind,
      from: { value, unit: fromUnit.symbol },
      to: { value: converted, unit: toUnit.symbol },
    };
  },
});
