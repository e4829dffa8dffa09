/**
 * @module sandbox/guest/web/performance
 * `performance` after High Resolution Time and User Timing: an EventTarget
 * with `now()`, `timeOrigin`, `mark`, `measure`, `getEntries`,
 * `getEntriesByName`, `getEntriesByType`, `clearMarks`, `clearMeasures` and
 * `toJSON`, over this context's performance entry buffer. The entries and the
 * clock are ./performance-entry.ts (the clock is coarse on purpose, see
 * there), the buffer and PerformanceObserver ./performance-observer.ts. *
 * Its helpers are `const` functions, not declarations: esbuild hoists a
 * function declaration out of a lazy module's init to the top of the lazy
 * web script, where every isolate that loads the script (for any of its
 * globals) pays for it.
 */
import { EventTarget } from "./events.js";
import { DOMException } from "./dom-exception.js";
import { intrinsics as I } from "../intrinsics.js";
import { cloneDetail, createMeasure, fieldsOf, filterEntries, now, PerformanceMark, startClock, timeOrigin, toDictionary, toDOMString, toTimestamp, type EntryType } from "./performance-entry.js";
import { queueEntry, setObserverTask, timelineBuffer, type ObserverTaskOptions } from "./performance-observer.js";

export { PerformanceEntry, PerformanceMark, PerformanceMeasure } from "./performance-entry.js";
export { PerformanceObserver, PerformanceObserverEntryList } from "./performance-observer.js";

const FERAL_SET_PROTOTYPE_OF = Object.setPrototypeOf;

export type PerformanceOptions = ObserverTaskOptions & {
  /** Where the clock counts from: Date.now() less 1 ms when the runtime installed its globals (./performance-entry.ts). */
  timeOriginMs: number;
};

export class Performance extends EventTarget {
  constructor() {
    super();
    throw new I.TypeError("Illegal constructor");
  }
}
I.ObjectDefineProperty(Performance.prototype, Symbol.toStringTag, { __proto__: null, value: "Performance", configurable: true } as PropertyDescriptor);

/** PerformanceTiming's attributes: a Window's navigation times, a TypeError as a mark's name anywhere else (a tool's global is no Window). */
const PERFORMANCE_TIMING_NAMES: readonly string[] = I.ObjectFreeze([
  "navigationStart", "unloadEventStart", "unloadEventEnd", "redirectStart", "redirectEnd", "fetchStart", "domainLookupStart",
  "domainLookupEnd", "connectStart", "connectEnd", "secureConnectionStart", "requestStart", "responseStart", "responseEnd",
  "domLoading", "domInteractive", "domContentLoadedEventStart", "domContentLoadedEventEnd", "domComplete", "loadEventStart", "loadEventEnd",
]);

/** User Timing's "convert a mark to a timestamp": a timestamp as given (not negative), or the latest mark of that name. */
const timeOf = (mark: string | number): number => {
  if (typeof mark === "number") {
    if (mark < 0) throw new I.TypeError("A timestamp must not be negative");
    return mark;
  }
  for (let i = 0; i < PERFORMANCE_TIMING_NAMES.length; i++) {
    if (PERFORMANCE_TIMING_NAMES[i] === mark) throw new I.TypeError(`'${mark}' is a navigation time, which only a Window has.`);
  }
  for (let i = timelineBuffer.length - 1; i >= 0; i--) {
    const fields = fieldsOf(timelineBuffer[i]);
    if (fields.entryType === "mark" && fields.name === mark) return fields.startTime;
  }
  throw new DOMException(`The mark '${mark}' does not exist.`, "SyntaxError");
};

/** WebIDL's (DOMString or DOMHighResTimeStamp): a number stays one, anything else is a mark's name. */
const toMarkOrTime = (value: unknown, what: string): string | number | undefined => (value === undefined ? undefined : typeof value === "number" ? toTimestamp(value, what) : toDOMString(value));

type MeasureOptions = { detail: unknown; duration: number | undefined; end: string | number | undefined; start: string | number | undefined };

/** PerformanceMeasureOptions, its members read in WebIDL's (alphabetical) order. */
const toMeasureOptions = (value: unknown): MeasureOptions => {
  const dictionary = toDictionary(value, "The measure's options");
  const detail = dictionary.detail;
  const duration = dictionary.duration === undefined ? undefined : toTimestamp(dictionary.duration, "duration");
  const end = toMarkOrTime(dictionary.end, "end");
  return { detail, duration, end, start: toMarkOrTime(dictionary.start, "start") };
};

/** User Timing's measure() after its arguments are converted: the entry's start, duration and detail. */
const measureFields = (name: string, startOrOptions: unknown, endMark: unknown) => {
  // (DOMString or PerformanceMeasureOptions): undefined, null or an object is the dictionary, anything else a mark's name.
  const isDictionary = startOrOptions === undefined || startOrOptions === null || typeof startOrOptions === "object" || typeof startOrOptions === "function";
  const startMark = isDictionary ? undefined : toDOMString(startOrOptions);
  const options = isDictionary ? toMeasureOptions(startOrOptions) : undefined;
  const end = endMark === undefined ? undefined : toDOMString(endMark);
  const given = options !== undefined && (options.start !== undefined || options.end !== undefined || options.duration !== undefined || options.detail !== undefined) ? options : undefined;
  if (given !== undefined) {
    if (end !== undefined) throw new I.TypeError(`'${name}': an endMark cannot follow measure options.`);
    if (given.start === undefined && given.end === undefined) throw new I.TypeError(`'${name}': measure options must have a start or an end.`);
    if (given.start !== undefined && given.duration !== undefined && given.end !== undefined) throw new I.TypeError(`'${name}': measure options cannot have a start, a duration and an end.`);
  }
  let endTime: number;
  if (given?.end !== undefined) endTime = timeOf(given.end);
  else if (given?.start !== undefined && given.duration !== undefined) endTime = timeOf(given.start) + given.duration;
  else if (end !== undefined) endTime = timeOf(end);
  else endTime = now();
  let startTime: number;
  if (given?.start !== undefined) startTime = timeOf(given.start);
  else if (given?.duration !== undefined && given.end !== undefined) startTime = endTime - given.duration;
  else if (startMark !== undefined) startTime = timeOf(startMark);
  else startTime = 0;
  return { name, entryType: "measure" as const, startTime, duration: endTime - startTime, detail: given === undefined ? null : cloneDetail(given.detail) };
};

/** Removes the entries of `type` (named `name`, if given) from the buffer, in place. */
const clearEntries = (type: EntryType, name: string | undefined): void => {
  let kept = 0;
  for (let i = 0; i < timelineBuffer.length; i++) {
    const fields = fieldsOf(timelineBuffer[i]);
    if (fields.entryType === type && (name === undefined || fields.name === name)) continue;
    timelineBuffer[kept++] = timelineBuffer[i] as (typeof timelineBuffer)[number];
  }
  timelineBuffer.length = kept;
};

const required = (count: number, method: string) => {
  if (count === 0) throw new I.TypeError(`Failed to execute '${method}' on 'Performance': 1 argument required, but only 0 present.`);
};

/** This context's `performance` (built once, with the globals). */
export const createPerformance = (options: PerformanceOptions) => {
  startClock(options.timeOriginMs);
  setObserverTask(options);
  // An EventTarget made without Performance's constructor (which refuses everyone), then given its prototype.
  const performance = new EventTarget() as unknown as Record<string, unknown>;
  FERAL_SET_PROTOTYPE_OF(performance, Performance.prototype);
  const methods = {
    now() {
      return now();
    },
    mark(markName: string, markOptions?: { startTime?: number; detail?: unknown }) {
      required(arguments.length, "mark");
      const made = new PerformanceMark(markName, markOptions);
      I.arrayPush(timelineBuffer, made);
      queueEntry(made);
      return made;
    },
    measure(measureName: string, startOrMeasureOptions?: unknown, endMark?: string) {
      required(arguments.length, "measure");
      const made = createMeasure(measureFields(toDOMString(measureName), startOrMeasureOptions, endMark));
      I.arrayPush(timelineBuffer, made);
      queueEntry(made);
      return made;
    },
    getEntries() {
      return filterEntries(timelineBuffer);
    },
    getEntriesByType(type: string) {
      required(arguments.length, "getEntriesByType");
      return filterEntries(timelineBuffer, undefined, toDOMString(type));
    },
    getEntriesByName(name: string, type?: string) {
      required(arguments.length, "getEntriesByName");
      return filterEntries(timelineBuffer, toDOMString(name), type === undefined ? undefined : toDOMString(type));
    },
    clearMarks(markName?: string) {
      clearEntries("mark", markName === undefined ? undefined : toDOMString(markName));
    },
    clearMeasures(measureName?: string) {
      clearEntries("measure", measureName === undefined ? undefined : toDOMString(measureName));
    },
    toJSON() {
      return { timeOrigin: timeOrigin() };
    },
  };
  for (const key of I.ObjectKeys(methods)) I.ObjectDefineProperty(performance, key, { __proto__: null, value: (methods as Record<string, unknown>)[key], writable: true, configurable: true, enumerable: true } as PropertyDescriptor);
  I.ObjectDefineProperty(performance, "timeOrigin", { __proto__: null, value: timeOrigin(), enumerable: true, configurable: true } as PropertyDescriptor);
  return performance;
};
