/**
 * @module plugins/date-math
 * The `date_math` tool: calendar arithmetic and differences on UTC dates.
 * Parsing lives in parse-iso.ts; this file owns the tool's contract and the
 * order of operations, which the description states because it changes
 * answers: years and months first (clamped to the month's end), then the
 * fixed-length units.
 */
import { defineTool } from "corral";
import { z } from "zod";
import { daysInMonth, isLeapYear, parseIso, utcMs } from "./parse-iso.js";

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60 * MS_PER_SECOND;
const MS_PER_HOUR = 60 * MS_PER_MINUTE;
const MS_PER_DAY = 24 * MS_PER_HOUR;
// Not Intl: the isolate promises no locale data, and English names are what the contract says.
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const Add = z.strictObject({
  years: z.number().int().optional().describe("Whole years to add (negative subtracts)."),
  months: z.number().int().optional().describe("Whole months to add (negative subtracts); the day is clamped to the month's end."),
  weeks: z.number().optional().describe("Weeks to add (7 days each)."),
  days: z.number().optional().describe("Days to add (24 hours each in UTC)."),
  hours: z.number().optional().describe("Hours to add."),
  minutes: z.number().optional().describe("Minutes to add."),
  seconds: z.number().optional().describe("Seconds to add."),
});

function outOfRange(): never {
  throw new Error("the result is outside the range of dates that can be represented (about 271,821 BC to AD 275,760)");
}

/** Calendar months: Jan 31 + 1 month is the last day of February, not March 3. */
function addMonths(time: number, months: number): number {
  const date = new Date(time);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  const timeOfDay = time - utcMs(year, month, day);
  const total = year * 12 + (month - 1) + months;
  const newYear = Math.floor(total / 12);
  const newMonth = total - newYear * 12 + 1;
  return utcMs(newYear, newMonth, Math.min(day, daysInMonth(newYear, newMonth)), timeOfDay);
}

function applyAdd(time: number, add: z.infer<typeof Add>): number {
  const months = (add.years ?? 0) * 12 + (add.months ?? 0);
  let result = months === 0 ? time : addMonths(time, months);
  const fixedMs =
    ((add.weeks ?? 0) * 7 + (add.days ?? 0)) * MS_PER_DAY +
    (add.hours ?? 0) * MS_PER_HOUR +
    (add.minutes ?? 0) * MS_PER_MINUTE +
    (add.seconds ?? 0) * MS_PER_SECOND;
  result = Math.round(result + fixedMs);
  if (!Number.isFinite(result) || Number.isNaN(new Date(result).getTime())) outOfRange();
  return result;
}

/** Truncated toward zero; `+ 0` turns -0 into 0. */
function whole(ms: number, unitMs: number): number {
  return Math.trunc(ms / unitMs) + 0;
}

export default defineTool({
  name: "date_math",
  description:
    "Do date arithmetic in UTC. Give an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss, with optional Z or " +
    "offset; no offset means UTC), optionally an amount to add (negative values subtract) and optionally a second " +
    "date to measure the difference to. Years and months are added first, as calendar months clamped to the " +
    "month's end (Jan 31 + 1 month = Feb 28, or 29 in a leap year); then weeks, days, hours, minutes and seconds " +
    "as exact durations. Returns the resulting moment as ISO text in UTC, its English weekday, day of the year " +
    "(1-366) and whether its year is a leap year. With diffTo, diff is diffTo minus the result: each field is the " +
    "whole difference in that unit, truncated toward zero (36 hours is days 1, hours 36), negative when diffTo is earlier.",
  input: z.strictObject({
    date: z.string().min(1).describe('The starting date, ISO 8601, e.g. "2024-01-31" or "2024-01-31T18:30:00Z".'),
    add: Add.optional().describe("Amounts to add to the date; omit to use the date as it is."),
    diffTo: z.string().min(1).optional().describe("A second ISO 8601 date; the answer then includes diff = diffTo - result."),
  }),
  effects: [],
  run({ date, add, diffTo }) {
    const start = parseIso(date, "date");
    const time = add === undefined ? start : applyAdd(start, add);
    const result = new Date(time);
    const year = result.getUTCFullYear();
    const startOfDay = utcMs(year, result.getUTCMonth() + 1, result.getUTCDate());
    const answer: Record<string, unknown> = {
      result: result.toISOString(),
      weekday: WEEKDAYS[result.getUTCDay()],
      dayOfYear: Math.round((startOfDay - utcMs(year, 1, 1)) / MS_PER_DAY) + 1,
      isLeapYear: isLeapYear(year),
    };
    if (diffTo !== undefined) {
      const deltaMs = parseIso(diffTo, "diffTo") - time;
      answer.diff = {
        days: whole(deltaMs, MS_PER_DAY),
        hours: whole(deltaMs, MS_PER_HOUR),
        minutes: whole(deltaMs, MS_PER_MINUTE),
        seconds: whole(deltaMs, MS_PER_SECOND),
        milliseconds: deltaMs + 0,
      };
    }
    return answer;
  },
});
