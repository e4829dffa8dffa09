/**
 * @module sandbox/guest/web/performance
 * `performance` after High Resolution Time and User Timing: an EventTarget
 * with `now()`, `timeOrigin`, `mark`, `measure`, `getEntries`,
 * `getEntriesByName`, `getEntriesByType`, `clearMarks`, `clearMeasures` and
 * `toJSON`. Its clock is coarse on purpose: the isolate's own clock
 * (`Date.now()`, whole milliseconds), never running backwards, so a tool
 * gets no finer timer than it already has and nothing here helps a timing
 * side channel.
 */
import { EventTarget } from "./events.js";
import { DOMException } from "./dom-exception.js";
import { intrinsics as I } from "../intrinsics.js";

const FERAL_SET_PROTOTYPE_OF = Object.setPrototypeOf;

type EntryFields = { name: string; entryType: "mark" | "measure"; startTime: number; duration: number; detail: unknown };
const FIELDS = new WeakMap<object, EntryFields>();

export class PerformanceEntry {
  constructor() {
    throw new TypeError("Illegal constructor");
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
  get detail(): unknown {
    return fieldsOf(this).detail;
  }
  toJSON(): object {
    const { name, entryType, startTime, duration, detail } = fieldsOf(this);
    return { name, entryType, startTime, duration, detail };
  }
}
export class PerformanceMark extends PerformanceEntry {}
export class PerformanceMeasure extends PerformanceEntry {}
for (const [target, name] of [[PerformanceEntry, "PerformanceEntry"], [PerformanceMark, "PerformanceMark"], [PerformanceMeasure, "PerformanceMeasure"]] as const) {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}

function fieldsOf(entry: object): EntryFields {
  const fields = FIELDS.get(entry);
  if (fields === undefined) throw new TypeError("Illegal invocation");
  return fields;
}

function entry(Type: typeof PerformanceMark, fields: EntryFields): PerformanceEntry {
  const made = I.ObjectCreate(Type.prototype) as PerformanceEntry;
  FIELDS.set(made, fields);
  return made;
}

export class Performance extends EventTarget {
  constructor() {
    super();
    throw new TypeError("Illegal constructor");
  }
}
I.ObjectDefineProperty(Performance.prototype, Symbol.toStringTag, { __proto__: null, value: "Performance", configurable: true } as PropertyDescriptor);

export function createPerformance() {
  const timeOrigin = Date.now();
  let last = 0;
  const entries: PerformanceEntry[] = [];
  const now = (): number => {
    const elapsed = Date.now() - timeOrigin;
    if (elapsed > last) last = elapsed;
    return last;
  };
  /** A mark's time by name (the latest), or a timestamp as given. */
  const timeOf = (mark: unknown): number => {
    if (typeof mark === "number") {
      if (mark < 0) throw new TypeError("A timestamp must not be negative");
      return mark;
    }
    const name = String(mark);
    for (let i = entries.length - 1; i >= 0; i--) {
      const fields = fieldsOf(entries[i] as object);
      if (fields.entryType === "mark" && fields.name === name) return fields.startTime;
    }
    throw new DOMException(`The mark '${name}' does not exist.`, "SyntaxError");
  };
  const byType = (type: string) => entries.filter((e) => fieldsOf(e).entryType === type);
  const clear = (type: string, name?: unknown) => {
    for (let i = entries.length - 1; i >= 0; i--) {
      const fields = fieldsOf(entries[i] as object);
      if (fields.entryType === type && (name === undefined || fields.name === String(name))) entries.splice(i, 1);
    }
  };
  // An EventTarget made without Performance's constructor (which refuses everyone), then given its prototype.
  const performance = new EventTarget() as unknown as Record<string, unknown>;
  FERAL_SET_PROTOTYPE_OF(performance, Performance.prototype);
  const methods = {
    now() {
      return now();
    },
    mark(name: string, options?: { startTime?: number; detail?: unknown }) {
      if (arguments.length === 0) throw new TypeError("Failed to execute 'mark' on 'Performance': 1 argument required.");
      const made = entry(PerformanceMark, { name: String(name), entryType: "mark", startTime: options?.startTime === undefined ? now() : timeOf(Number(options.startTime)), duration: 0, detail: options?.detail ?? null });
      entries.push(made);
      return made;
    },
    measure(name: string, start?: unknown, end?: unknown) {
      if (arguments.length === 0) throw new TypeError("Failed to execute 'measure' on 'Performance': 1 argument required.");
      let startTime = 0;
      let endTime = now();
      let detail: unknown = null;
      if (typeof start === "object" && start !== null) {
        const o = start as { start?: unknown; end?: unknown; duration?: number; detail?: unknown };
        if (o.start !== undefined) startTime = timeOf(o.start);
        if (o.end !== undefined) endTime = timeOf(o.end);
        else if (o.duration !== undefined) endTime = startTime + Number(o.duration);
        if (o.start === undefined && o.end !== undefined && o.duration !== undefined) startTime = endTime - Number(o.duration);
        detail = o.detail ?? null;
      } else {
        if (start !== undefined) startTime = timeOf(start);
        if (end !== undefined) endTime = timeOf(end);
      }
      const made = entry(PerformanceMeasure, { name: String(name), entryType: "measure", startTime, duration: endTime - startTime, detail });
      entries.push(made);
      return made;
    },
    getEntries: () => [...entries],
    getEntriesByType: (type: string) => byType(String(type)),
    getEntriesByName: (name: string, type?: string) => entries.filter((e) => fieldsOf(e).name === String(name) && (type === undefined || fieldsOf(e).entryType === String(type))),
    clearMarks: (name?: string) => clear("mark", name),
    clearMeasures: (name?: string) => clear("measure", name),
    toJSON: () => ({ timeOrigin }),
  };
  for (const key of I.ObjectKeys(methods)) I.ObjectDefineProperty(performance, key, { __proto__: null, value: (methods as Record<string, unknown>)[key], writable: true, configurable: true, enumerable: true } as PropertyDescriptor);
  I.ObjectDefineProperty(performance, "timeOrigin", { __proto__: null, value: timeOrigin, enumerable: true, configurable: true } as PropertyDescriptor);
  return performance;
}
