/**
 * @module plugins/unit-convert/units
 * The unit table: every unit's kind, its factor to the kind's base unit, and
 * the names a caller may use for it. Factors are exact definitions where one
 * exists (1 in = 0.0254 m, 1 lb = 0.45359237 kg, 1 US gal = 3.785411784 L).
 * Temperatures are not factors of each other, so they carry an offset too:
 * kelvin = (value + offset) * factor.
 */

export type Kind = "length" | "mass" | "volume" | "temperature" | "time" | "data" | "speed";

export type Unit = {
  /** The canonical symbol, used in answers and error messages. */
  symbol: string;
  kind: Kind;
  /** How many base units one of this unit is (base: m, kg, L, K, s, B, m/s). */
  factor: number;
  /** Added before scaling; only temperatures have one. */
  offset?: number;
  /** Other accepted spellings; matching ignores case when that is unambiguous. */
  aliases: string[];
};

const u = (symbol: string, kind: Kind, factor: number, aliases: string[] = [], offset?: number): Unit =>
  offset === undefined ? { symbol, kind, factor, aliases } : { symbol, kind, factor, aliases, offset };

export const UNITS: readonly Unit[] = [
  u("nm", "length", 1e-9, ["nanometer", "nanometers", "nanometre", "nanometres"]),
  u("µm", "length", 1e-6, ["um", "micrometer", "micrometers", "micrometre", "micrometres", "micron", "microns"]),
  u("mm", "length", 1e-3, ["millimeter", "millimeters", "millimetre", "millimetres"]),
  u("cm", "length", 1e-2, ["centimeter", "centimeters", "centimetre", "centimetres"]),
  u("m", "length", 1, ["meter", "meters", "metre", "metres"]),
  u("km", "length", 1e3, ["kilometer", "kilometers", "kilometre", "kilometres"]),
  u("in", "length", 0.0254, ["inch", "inches", '"']),
  u("ft", "length", 0.3048, ["foot", "feet", "'"]),
  u("yd", "length", 0.9144, ["yard", "yards"]),
  u("mi", "length", 1609.344, ["mile", "miles"]),
  u("nmi", "length", 1852, ["nautical mile", "nautical miles"]),

  u("mg", "mass", 1e-6, ["milligram", "milligrams"]),
  u("g", "mass", 1e-3, ["gram", "grams"]),
  u("kg", "mass", 1, ["kilogram", "kilograms", "kilo", "kilos"]),
  u("t", "mass", 1e3, ["tonne", "tonnes", "metric ton", "metric tons"]),
  u("oz", "mass", 0.028349523125, ["ounce", "ounces"]),
  u("lb", "mass", 0.45359237, ["lbs", "pound", "pounds"]),
  u("st", "mass", 6.35029318, ["stone", "stones"]),

  u("mL", "volume", 1e-3, ["ml", "milliliter", "milliliters", "millilitre", "millilitres", "cm3", "cc"]),
  u("cL", "volume", 1e-2, ["cl", "centiliter", "centiliters", "centilitre", "centilitres"]),
  u("dL", "volume", 1e-1, ["dl", "deciliter", "deciliters", "decilitre", "decilitres"]),
  u("L", "volume", 1, ["l", "liter", "liters", "litre", "litres", "dm3"]),
  u("m3", "volume", 1e3, ["m³", "cubic meter", "cubic meters", "cubic metre", "cubic metres"]),
  u("tsp", "volume", 0.00492892159375, ["teaspoon", "teaspoons"]),
  u("tbsp", "volume", 0.01478676478125, ["tablespoon", "tablespoons"]),
  u("fl oz", "volume", 0.0295735295625, ["floz", "fluid ounce", "fluid ounces"]),
  u("cup", "volume", 0.2365882365, ["cups"]),
  u("pt", "volume", 0.473176473, ["pint", "pints"]),
  u("qt", "volume", 0.946352946, ["quart", "quarts"]),
  u("gal", "volume", 3.785411784, ["gallon", "gallons", "us gal"]),
  u("imp gal", "volume", 4.54609, ["imperial gallon", "imperial gallons"]),

  u("C", "temperature", 1, ["°C", "celsius", "degC"], 273.15),
  u("F", "temperature", 5 / 9, ["°F", "fahrenheit", "degF"], 459.67),
  u("K", "temperature", 1, ["kelvin", "kelvins"], 0),

  u("ns", "time", 1e-9, ["nanosecond", "nanoseconds"]),
  u("µs", "time", 1e-6, ["us", "microsecond", "microseconds"]),
  u("ms", "time", 1e-3, ["millisecond", "milliseconds"]),
  u("s", "time", 1, ["sec", "secs", "second", "seconds"]),
  u("min", "time", 60, ["mins", "minute", "minutes"]),
  u("h", "time", 3600, ["hr", "hrs", "hour", "hours"]),
  u("d", "time", 86_400, ["day", "days"]),
  u("wk", "time", 604_800, ["week", "weeks"]),
  // A Julian year: 365.25 days, the average length of a calendar year.
  u("yr", "time", 31_557_600, ["year", "years"]),

  u("bit", "data", 1 / 8, ["bits"]),
  u("B", "data", 1, ["byte", "bytes"]),
  u("KB", "data", 1e3, ["kB", "kilobyte", "kilobytes"]),
  u("MB", "data", 1e6, ["megabyte", "megabytes"]),
  u("GB", "data", 1e9, ["gigabyte", "gigabytes"]),
  u("TB", "data", 1e12, ["terabyte", "terabytes"]),
  u("KiB", "data", 1024, ["kibibyte", "kibibytes"]),
  u("MiB", "data", 1024 ** 2, ["mebibyte", "mebibytes"]),
  u("GiB", "data", 1024 ** 3, ["gibibyte", "gibibytes"]),
  u("TiB", "data", 1024 ** 4, ["tebibyte", "tebibytes"]),

  u("m/s", "speed", 1, ["mps", "meters per second", "metres per second"]),
  u("km/h", "speed", 1000 / 3600, ["kph", "kmh", "kilometers per hour", "kilometres per hour"]),
  u("mph", "speed", 1609.344 / 3600, ["mi/h", "miles per hour"]),
  u("kn", "speed", 1852 / 3600, ["kt", "knot", "knots"]),
  u("ft/s", "speed", 0.3048, ["fps", "feet per second"]),
];

const exact = new Map<string, Unit>();
const folded = new Map<string, Unit | "ambiguous">();
for (const unit of UNITS) {
  for (const name of [unit.symbol, ...unit.aliases]) {
    exact.set(name, unit);
    const key = name.toLowerCase();
    const seen = folded.get(key);
    folded.set(key, seen === undefined || seen === unit ? unit : "ambiguous");
  }
}

/** The unit a name means: exact spelling first, then ignoring case and extra spaces if only one unit fits. */
export function findUnit(name: string): Unit | undefined {
  const trimmed = name.trim().replace(/\s+/g, " ");
  const hit = exact.get(trimmed) ?? folded.get(trimmed.toLowerCase());
  return hit === "ambiguous" ? undefined : hit;
}

export function symbolsOf(kind: Kind): string[] {
  return UNITS.filter((unit) => unit.kind === kind).map((unit) => unit.symbol);
}

export const KINDS: readonly Kind[] = ["length", "mass", "volume", "temperature", "time", "data", "speed"];
