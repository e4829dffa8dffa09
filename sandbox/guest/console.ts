/**
 * @module sandbox/guest/console
 * A `console` for tools that keeps a bounded number of short lines for the
 * current call. The lines come back with the call's result; the host logs
 * them only when the operator asks for tool output.
 */
import { intrinsics as I } from "./intrinsics.js";
import { serialize } from "./serialize.js";

export const MAX_LOG_LINES = 100;
export const MAX_LOG_LINE_CHARS = 500;

export function createConsole() {
  let lines: string[] = [];
  let dropped = 0;

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
      if (lines.length >= MAX_LOG_LINES) {
        dropped++;
        return;
      }
      I.arrayPush(lines, `[${level}] ${format(args)}`);
    };
  }

  const consoleObject = I.ObjectFreeze({
    log: logAt("log"),
    info: logAt("info"),
    debug: logAt("debug"),
    warn: logAt("warn"),
    error: logAt("error"),
    trace: logAt("trace"),
  });

  /** The lines of the call that just ended; starts a fresh list. */
  function take(): string[] {
    const taken = lines;
    if (dropped > 0) I.arrayPush(taken, `[corral] ${dropped} more log lines were dropped`);
    lines = [];
    dropped = 0;
    return taken;
  }

  return { console: consoleObject, take };
}
