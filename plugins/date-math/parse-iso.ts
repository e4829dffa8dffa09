/**
 * @module plugins/date-math/parse-iso
 * Reads an ISO 8601 date or date-time into epoch milliseconds. Date.parse
 * is not used: it reads a date-time without an offset in the isolate's local
 * time zone, which depends on the machine; here such a time is UTC, always.
 * Every field is range-checked, so "2023-02-30" fails instead of rolling
 * over to March.
 */

const ISO =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** Epoch ms of a UTC calendar moment; works for years 0-99 too, which Date.UTC would move to 19xx. */
export function utcMs(year: number, month: number, day: number, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime() + ms;
}

export function parseIso(text: string, field: string): number {
  const match = ISO.exec(text.trim());
  const bad = (why: string): never => {
    throw new Error(
      `"${text}" in "${field}" is not a valid ISO 8601 date: ${why}. Use YYYY-MM-DD, YYYY-MM-DDTHH:mm[:ss[.sss]] ` +
        "(read as UTC) or the same with Z or an offset such as +02:00",
    );
  };
  if (match === null) return bad("the format is not recognised");
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", zone = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) bad(`month ${mo} does not exist`);
  if (day < 1 || day > daysInMonth(year, month)) bad(`day ${d} does not exist in ${y}-${mo}`);
  if (hour > 23 || minute > 59 || second > 59) bad("the time of day is out of range");
  // Milliseconds from the fraction's first three digits; finer digits cannot be represented.
  const ms = Number(fraction.padEnd(3, "0").slice(0, 3));
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    const offsetHours = Number(digits.slice(0, 2));
    const extraMinutes = Number(digits.slice(2) || "0");
    if (offsetHours > 23 || extraMinutes > 59) bad(`the offset ${zone} is out of range`);
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (offsetHours * 60 + extraMinutes);
  }
  const time = utcMs(year, month, day, ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms);
  if (!Number.isFinite(time) || Number.isNaN(new Date(time).getTime())) bad("it is outside the range of dates");
  return time;
}
