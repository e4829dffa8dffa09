/**
 * @module sandbox/guest/web/performance-entry
 * User Timing's entries and the clock they are stamped with:
 * PerformanceEntry (not constructible), PerformanceMark (constructible, as
 * User Timing Level 3 has it: `new PerformanceMark(name, { detail,
 * startTime })`, detail structured-cloned) and PerformanceMeasure (made only
 * by `performance.measure`). An entry's fields live in a WeakMap, so its
 * getters answer only for entries made here.
 *
 * The clock is coarse on purpose: whole milliseconds of the isolate's own
 * `Date.now()`, never running backwards, so a tool gets no finer timer than
 * it already has and nothing here helps a timing side channel. Its origin is
 * the millisecond before the runtime installed its globals (Date.now() is
 * floored, so the real origin is no earlier), which makes every reading a
 * whole number of milliseconds rounded up, at least 1: `timeOrigin + now()`
 * is `Date.now()` (or a later reading, never earlier).
 *
 * This module runs inside the lazily built web script, after tool code: it
 * calls no method a tool could have replaced on a value the tool sees. *
 * Its helpers are `const` functions, not declarations: esbuild hoists a
 * function declaration out of a lazy module's init to the top of the lazy
 * web script, where every isolate that loads the script (for any of its
 * globals) pays for it.
 */
import { intrinsics as I } from "../intrinsics.js";
import { structuredClone } from "./clone.js";

export type EntryType = "mark" | "measure";
export type EntryFields = { name: string; entryType: EntryType; startTime: number; duration: number; detail: unknown };

let timeOriginMs = Number.NaN;
let lastReadingMs = 1;

/** Sets the origin of this context's clock (once, as performance is built). */
export const startClock = (originMs: number): void => {
  timeOriginMs = originMs;
};

export const timeOrigin = (): number => {
  return timeOriginMs;
};

/** Milliseconds since the time origin, whole, at least 1, never less than the last reading. */
export const now = (): number => {
  const elapsedMs = I.DateNow() - timeOriginMs;
  if (elapsedMs > lastReadingMs) lastReadingMs = elapsedMs;
  return lastReadingMs;
};

/** WebIDL's DOMString: ToString, which throws for a Symbol and rethrows what a toString throws. */
export const toDOMString = (value: unknown): string => {
  return `${value as string}`;
};

/** WebIDL's DOMHighResTimeStamp (a `double`): a finite number. */
export const toTimestamp = (value: unknown, what: string): number => {
  const number = +(value as number);
  if (!I.NumberIsFinite(number)) throw new I.TypeError(`${what} is not a finite number`);
  return number;
};

/** WebIDL's dictionary conversion: undefined and null are an empty one, an object is read, anything else is a TypeError. */
export const toDictionary = (value: unknown, what: string): Record<string, unknown> => {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" && typeof value !== "function") throw new I.TypeError(`${what} is not an object`);
  return value as Record<string, unknown>;
};

/** A detail as User Timing keeps it: null when absent or null, otherwise a structured clone (DataCloneError if it cannot be). */
export const cloneDetail = (detail: unknown): unknown => {
  return detail === undefined || detail === null ? null : structuredClone(detail);
};

const FIELDS = new WeakMap<object, EntryFields>();
/** Set by PerformanceMark's constructor just before it calls super(): every other `new` of an entry is illegal. */
let constructingMark = false;

export const fieldsOf = (entry: unknown): EntryFields => {
  const fields = typeof entry === "object" && entry !== null ? FIELDS.get(entry) : undefined;
  if (fields === undefined) throw new I.TypeError("Illegal invocation");
  return fields;
};

export class PerformanceEntry {
  constructor() {
    if (!constructingMark) throw new I.TypeError("Illegal constructor");
    constructingMark = false;
  }
  get name(): string {
    return fieldsOf(this).name;
  }
  get entryType(): string {
    return fieldsOf(this).entryType;
  }
  get startTime(): number {
    return fieldsOf(this).startTime;
  }
  get duration(): number {
    return fieldsOf(this).duration;
  }
  toJSON(): object {
    const { name, entryType, startTime, duration, detail } = fieldsOf(this);
    return { name, entryType, startTime, duration, detail };
  }
}

export class PerformanceMark extends PerformanceEntry {
  constructor(markName: string, markOptions?: { detail?: unknown; startTime?: number }) {
    if (arguments.length === 0) throw new I.TypeError("Failed to construct 'PerformanceMark': 1 argument required, but only 0 present.");
    const fields = markFields(markName, markOptions);
    constructingMark = true;
    super();
    FIELDS.set(this, fields);
  }
  get detail(): unknown {
    return fieldsOf(this).detail;
  }
}

export class PerformanceMeasure extends PerformanceEntry {
  get detail(): unknown {
    return fieldsOf(this).detail;
  }
}

for (const [target, name] of [[PerformanceEntry, "PerformanceEntry"], [PerformanceMark, "PerformanceMark"], [PerformanceMeasure, "PerformanceMeasure"]] as const) {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}

/** The arguments of `new PerformanceMark` converted in WebIDL's order (name, then the dictionary's members alphabetically). */
const markFields = (markName: unknown, markOptions: unknown): EntryFields => {
  const name = toDOMString(markName);
  const options = toDictionary(markOptions, "The mark's options");
  const detail = options.detail;
  const given = options.startTime;
  const startTime = given === undefined ? now() : toTimestamp(given, "startTime");
  if (startTime < 0) throw new I.TypeError(`'${name}' cannot have a negative start time.`);
  return { name, entryType: "mark", startTime, duration: 0, detail: cloneDetail(detail) };
};

/** A PerformanceMeasure with these fields (its constructor is illegal to everyone else). */
export const createMeasure = (fields: EntryFields): PerformanceMeasure => {
  const made = I.ObjectCreate(PerformanceMeasure.prototype) as PerformanceMeasure;
  FIELDS.set(made, fields);
  return made;
};

/**
 * Performance Timeline's "filter by name and type": the entries with that
 * name and type (either may be absent), in order of startTime, ties in the
 * order given (a merge sort: Array.prototype.sort is the tool's by now).
 */
export const filterEntries = (entries: readonly PerformanceEntry[], name?: string, type?: string): PerformanceEntry[] => {
  let kept: PerformanceEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const fields = fieldsOf(entries[i]);
    if ((name === undefined || fields.name === name) && (type === undefined || fields.entryType === type)) kept[kept.length] = entries[i] as PerformanceEntry;
  }
  for (let width = 1; width < kept.length; width *= 2) {
    const merged: PerformanceEntry[] = [];
    for (let start = 0; start < kept.length; start += 2 * width) {
      let left = start;
      const middle = I.MathMin(start + width, kept.length);
      let right = middle;
      const end = I.MathMin(start + 2 * width, kept.length);
      while (left < middle || right < end) {
        const takeLeft = right >= end || (left < middle && fieldsOf(kept[left]).startTime <= fieldsOf(kept[right]).startTime);
        merged[merged.length] = kept[takeLeft ? left++ : right++] as PerformanceEntry;
      }
    }
    kept = merged;
  }
  return kept;
};
