/**
 * @module sandbox/guest/console
 * A `console` for tools that keeps a bounded number of short lines for the
 * current call. The lines come back with the call's result; the host logs
 * them only when the operator asks for tool output. `count`/`countReset`
 * and `time`/`timeLog`/`timeEnd` keep their counts and start times (on
 * Date.now's whole-millisecond clock, like `performance`) in the isolate, as
 * the tool's other state is kept: a warm isolate keeps them from call to call.
 */
import { intrinsics as I } from "./intrinsics.js";
import { serialize } from "./serialize.js";
import { nameMembers } from "./standard-names.js";

export const MAX_LOG_LINES = 100;
export const MAX_LOG_LINE_CHARS = 500;

/** All lines of one call together, in characters. */
export const MAX_LOG_CHARS = 32 * 1024;

export function createConsole() {
  let lines: string[] = [];
  let chars = 0;
  let dropped = 0;
  /**
   * True while a line is being formatted. Formatting runs the tool's getters
   * and toJSON, which may log again: such a nested line is dropped (counted),
   * so the caps are checked once per line and hold however deep it nests.
   */
  let formatting = false;

  function format(args: unknown[]): string {
    let text = "";
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      let part: string;
      if (typeof arg === "string") part = arg;
      else {
        try {
          part = serialize(arg, { maxBytes: MAX_LOG_LINE_CHARS, maxDepth: 6 });
        } catch {
          part = "[unprintable]";
        }
      }
      text += i === 0 ? part : ` ${part}`;
      if (text.length > MAX_LOG_LINE_CHARS) break;
    }
    return text.length > MAX_LOG_LINE_CHARS ? `${I.stringSlice(text, 0, MAX_LOG_LINE_CHARS)}…` : text;
  }

  function logAt(level: string) {
    return (...args: unknown[]) => {
      if (formatting || lines.length >= MAX_LOG_LINES || chars >= MAX_LOG_CHARS) {
        dropped++;
        return;
      }
      formatting = true;
      let line: string;
      try {
        line = `[${level}] ${format(args)}`;
      } finally {
        formatting = false;
      }
      // Checked again: the caps hold for the line as written.
      if (lines.length >= MAX_LOG_LINES || chars + line.length > MAX_LOG_CHARS) {
        dropped++;
        return;
      }
      chars += line.length;
      I.arrayPush(lines, line);
    };
  }

  const log = logAt("log");
  const warn = logAt("warn");
  const error = logAt("error");
  // Made on first use: a tool that counts and times nothing pays nothing for them.
  let countsByLabel: Map<string, number> | undefined;
  let startedMsByLabel: Map<string, number> | undefined;
  const counts = () => (countsByLabel ??= new I.Map<string, number>());
  const timers = () => (startedMsByLabel ??= new I.Map<string, number>());

  /** A label as the Console standard converts it (WebIDL DOMString): its toString runs, and what it throws is thrown. */
  const labelOf = (label: unknown): string => (label === undefined ? "default" : `${label as string}`);

  const members = nameMembers({
    log,
    info: logAt("info"),
    debug: logAt("debug"),
    warn,
    error,
    trace: logAt("trace"),
    count(label?: unknown) {
      const name = labelOf(label);
      const count = (I.mapGet(counts(), name) ?? 0) + 1;
      I.mapSet(counts(), name, count);
      log(`${name}: ${count}`);
    },
    countReset(label?: unknown) {
      const name = labelOf(label);
      if (I.mapGet(counts(), name) === undefined) warn(`Count for '${name}' does not exist`);
      else I.mapSet(counts(), name, 0);
    },
    time(label?: unknown) {
      const name = labelOf(label);
      if (I.mapGet(timers(), name) !== undefined) warn(`Timer '${name}' already exists`);
      else I.mapSet(timers(), name, I.DateNow());
    },
    timeLog(label?: unknown, ...data: unknown[]) {
      const name = labelOf(label);
      const startedMs = I.mapGet(timers(), name);
      if (startedMs === undefined) return warn(`Timer '${name}' does not exist`);
      // Not a spread: that would run the array iterator, which a tool may have replaced.
      const args: unknown[] = [`${name}: ${I.DateNow() - startedMs}ms`];
      for (let i = 0; i < data.length; i++) args[i + 1] = data[i];
      I.apply(log, undefined, args);
    },
    timeEnd(label?: unknown) {
      const name = labelOf(label);
      const startedMs = I.mapGet(timers(), name);
      if (startedMs === undefined) return warn(`Timer '${name}' does not exist`);
      I.mapDelete(timers(), name);
      log(`${name}: ${I.DateNow() - startedMs}ms`);
    },
  });
  // A WebIDL namespace: its operations are its own properties (writable, enumerable, configurable), its
  // [[Prototype]] an empty object of its own over Object.prototype, and its @@toStringTag "console".
  // Nothing of the runtime's reads its members back (the runtime writes through `error` below), so a tool may
  // replace them in its own context.
  const consoleObject = I.ObjectCreate(I.ObjectCreate(I.ObjectPrototype)) as typeof members;
  for (const key of I.ObjectKeys(members)) {
    I.ObjectDefineProperty(consoleObject, key, { __proto__: null, value: (members as Record<string, unknown>)[key], writable: true, enumerable: true, configurable: true } as PropertyDescriptor);
  }
  I.ObjectDefineProperty(consoleObject, Symbol.toStringTag, { __proto__: null, value: "console", writable: false, enumerable: false, configurable: true } as PropertyDescriptor);

  /** The lines of the call that just ended; starts a fresh list. */
  function take(): string[] {
    const taken = lines;
    if (dropped > 0) I.arrayPush(taken, `[corral] ${dropped} more log lines were dropped`);
    lines = [];
    chars = 0;
    dropped = 0;
    return taken;
  }

  return { console: consoleObject, error, take };
}
