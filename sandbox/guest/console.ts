/**
 * @module sandbox/guest/console
 * A `console` for tools that keeps a bounded number of short lines for the
 * current call. The lines come back with the call's result; the host logs
 * them only when the operator asks for tool output.
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

  const consoleObject = I.ObjectFreeze(nameMembers({
    log: logAt("log"),
    info: logAt("info"),
    debug: logAt("debug"),
    warn: logAt("warn"),
    error: logAt("error"),
    trace: logAt("trace"),
  }));

  /** The lines of the call that just ended; starts a fresh list. */
  function take(): string[] {
    const taken = lines;
    if (dropped > 0) I.arrayPush(taken, `[corral] ${dropped} more log lines were dropped`);
    lines = [];
    chars = 0;
    dropped = 0;
    return taken;
  }

  return { console: consoleObject, take };
}
