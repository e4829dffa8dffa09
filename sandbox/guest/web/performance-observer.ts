/**
 * @module sandbox/guest/web/performance-observer
 * Performance Timeline for User Timing's entries: this context's performance
 * entry buffer, PerformanceObserver (`observe({ type, buffered })` or
 * `observe({ entryTypes })`, `disconnect`, `takeRecords`,
 * `supportedEntryTypes`) and PerformanceObserverEntryList.
 *
 *   performance.mark / measure ── queueEntry ──▶ timelineBuffer (every entry, until cleared)
 *                                     │
 *                                     └──▶ each registered observer that observes its type: its own list
 *                                                └──▶ one task calls each observer whose list is not empty,
 *                                                     with a PerformanceObserverEntryList of it
 *
 * The task is a timer of the runtime's own (captured before tool code ran).
 * At most one is pending, and each queued entry re-arms it: timers live only
 * for the call that set them, so a task dropped with its call must not leave
 * the observers waiting for good. (HTML orders no task source against
 * another, so the move is not observable as disorder.) A callback that throws
 * is reported, as HTML has it, to where reportError's uncancelled errors go
 * (the tool's console), and the other observers are still called. *
 * Its helpers are `const` functions, not declarations: esbuild hoists a
 * function declaration out of a lazy module's init to the top of the lazy
 * web script, where every isolate that loads the script (for any of its
 * globals) pays for it.
 */
import { intrinsics as I } from "../intrinsics.js";
import { DOMException } from "./dom-exception.js";
import { filterEntries, fieldsOf, toDictionary, toDOMString, type PerformanceEntry } from "./performance-entry.js";

export type ObserverTaskOptions = {
  /** The runtime's setTimeout and clearTimeout. */
  setTimer: (run: () => void, delayMs: number) => unknown;
  clearTimer: (id: unknown) => void;
  /** Where a callback's throw goes. */
  report: (error: unknown) => void;
};

type ObserverState = {
  callback: Function;
  /** "single" once observed with `type`, "multiple" with `entryTypes`: the other is then refused. */
  kind: "undefined" | "single" | "multiple";
  /** The types observed: each `type` given, or the supported ones of the last `entryTypes`. */
  types: string[];
  entries: PerformanceEntry[];
  /** Set by observe(): the next callback is told droppedEntriesCount (0: this buffer drops nothing). */
  requiresDroppedEntries: boolean;
};

const SUPPORTED_ENTRY_TYPES: readonly string[] = I.ObjectFreeze(["mark", "measure"]);
/** The performance entry buffer of this context's global: marks and measures, until cleared. */
export const timelineBuffer: PerformanceEntry[] = [];
const STATES = new WeakMap<object, ObserverState>();
const LISTS = new WeakMap<object, PerformanceEntry[]>();
let registered: PerformanceObserver[] = [];
let task: ObserverTaskOptions | undefined;
let pendingTimer: unknown;

/** Where the observer task runs and reports (once, as performance is built). */
export const setObserverTask = (options: ObserverTaskOptions): void => {
  task = options;
};

const stateOf = (observer: unknown): ObserverState => {
  const state = typeof observer === "object" && observer !== null ? STATES.get(observer) : undefined;
  if (state === undefined) throw new I.TypeError("Illegal invocation");
  return state;
};

const includes = <T>(list: readonly T[], value: T): boolean => {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
};

const queueObserverTask = (): void => {
  if (task === undefined) return;
  if (pendingTimer !== undefined) task.clearTimer(pendingTimer);
  pendingTimer = task.setTimer(runObserverTask, 0);
};

/** Performance Timeline's "queue a PerformanceEntry": into each interested observer's list, then the task. */
export const queueEntry = (entry: PerformanceEntry): void => {
  const type = fieldsOf(entry).entryType;
  let interested = false;
  for (let i = 0; i < registered.length; i++) {
    const state = stateOf(registered[i]);
    if (!includes(state.types, type)) continue;
    I.arrayPush(state.entries, entry);
    interested = true;
  }
  if (interested) queueObserverTask();
};

const runObserverTask = (): void => {
  pendingTimer = undefined;
  const notify: PerformanceObserver[] = [];
  for (let i = 0; i < registered.length; i++) notify[i] = registered[i] as PerformanceObserver;
  for (let i = 0; i < notify.length; i++) {
    const observer = notify[i] as PerformanceObserver;
    const state = stateOf(observer);
    if (state.entries.length === 0) continue;
    const list = createEntryList(state.entries);
    state.entries = [];
    const callbackOptions: { droppedEntriesCount?: number } = {};
    if (state.requiresDroppedEntries) {
      callbackOptions.droppedEntriesCount = 0;
      state.requiresDroppedEntries = false;
    }
    try {
      I.apply(state.callback, observer, [list, observer, callbackOptions]);
    } catch (error) {
      task?.report(error);
    }
  }
};

/** WebIDL's sequence<DOMString>: an iterable object, each item a DOMString. */
const toStringSequence = (value: unknown, what: string): string[] => {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) throw new I.TypeError(`${what} is not a sequence`);
  if (typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== "function") throw new I.TypeError(`${what} is not iterable`);
  const out: string[] = [];
  for (const item of value as Iterable<unknown>) out[out.length] = toDOMString(item);
  return out;
};

export class PerformanceObserver {
  constructor(callback: (list: PerformanceObserverEntryList, observer: PerformanceObserver) => void) {
    if (typeof callback !== "function") throw new I.TypeError("Failed to construct 'PerformanceObserver': The callback provided as parameter 1 is not a function.");
    STATES.set(this, { callback, kind: "undefined", types: [], entries: [], requiresDroppedEntries: false });
  }

  static get supportedEntryTypes(): readonly string[] {
    return SUPPORTED_ENTRY_TYPES;
  }

  observe(options?: { type?: string; entryTypes?: string[]; buffered?: boolean }): void {
    const state = stateOf(this);
    // The dictionary's members, read in WebIDL's (alphabetical) order.
    const init = toDictionary(options, "The observer's options");
    const buffered = init.buffered === undefined ? undefined : !!init.buffered;
    const entryTypes = init.entryTypes === undefined ? undefined : toStringSequence(init.entryTypes, "entryTypes");
    const type = init.type === undefined ? undefined : toDOMString(init.type);
    if (entryTypes === undefined && type === undefined) throw new I.TypeError("Failed to execute 'observe' on 'PerformanceObserver': An observe() call must include either entryTypes or type arguments.");
    if (entryTypes !== undefined && (type !== undefined || buffered !== undefined)) {
      throw new I.TypeError("Failed to execute 'observe' on 'PerformanceObserver': An observe() call must not include both entryTypes and type or buffered arguments.");
    }
    if (state.kind === "undefined") state.kind = entryTypes !== undefined ? "multiple" : "single";
    if (state.kind === "single" && entryTypes !== undefined) throw new DOMException("This observer has observed a type: it cannot observe entryTypes.", "InvalidModificationError");
    if (state.kind === "multiple" && type !== undefined) throw new DOMException("This observer has observed entryTypes: it cannot observe a type.", "InvalidModificationError");
    state.requiresDroppedEntries = true;
    if (entryTypes !== undefined) {
      const types: string[] = [];
      for (let i = 0; i < entryTypes.length; i++) if (includes(SUPPORTED_ENTRY_TYPES, entryTypes[i] as string)) I.arrayPush(types, entryTypes[i] as string);
      // No supported type: the call is ignored (a browser warns on its console).
      if (types.length === 0) return;
      state.types = types;
      if (!includes(registered, this)) I.arrayPush(registered, this);
      return;
    }
    if (!includes(SUPPORTED_ENTRY_TYPES, type as string)) return;
    if (!includes(state.types, type as string)) I.arrayPush(state.types, type as string);
    if (!includes(registered, this)) I.arrayPush(registered, this);
    if (buffered === true) {
      const past = filterEntries(timelineBuffer, undefined, type);
      for (let i = 0; i < past.length; i++) I.arrayPush(state.entries, past[i] as PerformanceEntry);
      queueObserverTask();
    }
  }

  disconnect(): void {
    const state = stateOf(this);
    const kept: PerformanceObserver[] = [];
    for (let i = 0; i < registered.length; i++) if (registered[i] !== this) I.arrayPush(kept, registered[i] as PerformanceObserver);
    registered = kept;
    state.entries = [];
    state.types = [];
  }

  takeRecords(): PerformanceEntry[] {
    const state = stateOf(this);
    const taken = state.entries;
    state.entries = [];
    return taken;
  }
}

export class PerformanceObserverEntryList {
  constructor() {
    throw new I.TypeError("Illegal constructor");
  }
  getEntries(): PerformanceEntry[] {
    return filterEntries(listOf(this));
  }
  getEntriesByType(type: string): PerformanceEntry[] {
    if (arguments.length === 0) throw new I.TypeError("Failed to execute 'getEntriesByType': 1 argument required, but only 0 present.");
    return filterEntries(listOf(this), undefined, toDOMString(type));
  }
  getEntriesByName(name: string, type?: string): PerformanceEntry[] {
    if (arguments.length === 0) throw new I.TypeError("Failed to execute 'getEntriesByName': 1 argument required, but only 0 present.");
    return filterEntries(listOf(this), toDOMString(name), type === undefined ? undefined : toDOMString(type));
  }
}

for (const [target, name] of [[PerformanceObserver, "PerformanceObserver"], [PerformanceObserverEntryList, "PerformanceObserverEntryList"]] as const) {
  I.ObjectDefineProperty(target.prototype, Symbol.toStringTag, { __proto__: null, value: name, configurable: true } as PropertyDescriptor);
}

const listOf = (list: unknown): PerformanceEntry[] => {
  const entries = typeof list === "object" && list !== null ? LISTS.get(list) : undefined;
  if (entries === undefined) throw new I.TypeError("Illegal invocation");
  return entries;
};

const createEntryList = (entries: PerformanceEntry[]): PerformanceObserverEntryList => {
  const made = I.ObjectCreate(PerformanceObserverEntryList.prototype) as PerformanceObserverEntryList;
  LISTS.set(made, entries);
  return made;
};
