/**
 * @module sandbox/guest/answers
 * The envelopes the runtime answers with: a success record (checked against
 * the tool's output schema), an error record, and the tool's log lines in
 * the room each leaves. Every function here is corral's own failure path:
 * none throws, none exceeds its budget (they clip message, stack and logs
 * before they serialize), and they use only captured intrinsics.
 */
import type * as zod from "zod";
import * as sdk from "../sdk/index.js";
import type { Tool } from "../sdk/index.js";
import { intrinsics as I } from "./intrinsics.js";
import { serialize, type SerializeBudget } from "./serialize.js";
import { MESSAGE_MAX_CHARS } from "./describe-thrown.js";
import type { GuestAnswer, GuestAnswerKind } from "../shared/guest-api.js";

/** Error envelopes are ours and small: a fixed budget of their own, whatever the call's. */
const ERROR_BUDGET = { maxBytes: 64 * 1024, maxDepth: 8 };
/** The share of the error budget the tool's log lines may take (message and stack are clipped already). */
const ERROR_LOG_CHARS = 32 * 1024;

export function answerOf(kind: GuestAnswerKind, text: string): GuestAnswer {
  return { kind, text };
}

/** `recordText` (a JSON object) with a `logs` member of as many lines as fit in `room` characters. */
function withLogs(recordText: string, lines: string[], room: number): string {
  if (lines.length === 0) return recordText;
  let kept = lines;
  for (;;) {
    const dropped = lines.length - kept.length;
    const shown = dropped === 0 ? kept : concatLine(kept, `[corral] ${dropped} more log lines did not fit in the result`);
    try {
      const logsText = serialize(shown, { maxBytes: room - 10, maxDepth: 2 });
      return `${I.stringSlice(recordText, 0, recordText.length - 1)}${recordText.length > 2 ? "," : ""}"logs":${logsText}}`;
    } catch {
      if (kept.length === 0) return recordText;
      kept = firstOf(kept, kept.length >> 1);
    }
  }
}

function firstOf(list: string[], count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) I.arrayPush(out, list[i] as string);
  return out;
}

function concatLine(list: string[], line: string): string[] {
  const out = firstOf(list, list.length);
  I.arrayPush(out, line);
  return out;
}

export function clipText(text: string, max: number): string {
  return text.length > max ? `${I.stringSlice(text, 0, max)}… (cut)` : text;
}

/** Log lines up to `maxChars` in all; the rest are counted in one last line. */
function clipLogs(lines: string[], maxChars: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (used + line.length > maxChars) {
      I.arrayPush(kept, `[corral] ${lines.length - i} more log lines were cut to fit the error`);
      break;
    }
    used += line.length;
    I.arrayPush(kept, line);
  }
  return kept;
}

export function issuesOf(error: zod.ZodError): unknown[] {
  const issues: unknown[] = [];
  const list = error.issues;
  for (let i = 0; i < list.length && i < 50; i++) {
    const issue = list[i] as zod.core.$ZodIssue;
    const path: (string | number)[] = [];
    const parts = issue.path;
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j];
      I.arrayPush(path, typeof part === "number" ? part : I.String(part));
    }
    I.arrayPush(issues, { path, message: I.String(issue.message), code: I.String(issue.code) });
  }
  return issues;
}

export function summarise(issues: unknown[]): string {
  const parts: string[] = [];
  const list = issues as { path: unknown[]; message: string }[];
  for (let i = 0; i < list.length; i++) {
    const issue = list[i] as { path: unknown[]; message: string };
    const where = issue.path.length > 0 ? I.arrayJoin(issue.path, ".") : "(root)";
    I.arrayPush(parts, `${where}: ${issue.message}`);
  }
  return I.stringSlice(I.arrayJoin(parts, "; "), 0, MESSAGE_MAX_CHARS);
}

/** V8's own messages when it refuses memory to an ArrayBuffer, a typed array or a string. */
const REFUSALS = ["Array buffer allocation failed", "Invalid string length", "Invalid typed array length"];

/**
 * Whether a thrown value is V8 refusing an allocation: a real RangeError
 * whose own `message` (read as data, no getter runs) is one of V8's. A tool
 * can make the same error itself; it then only earns its own memory verdict,
 * and only with its isolate at the limit (classify.ts).
 */
export function isAllocationRefusal(thrown: unknown): boolean {
  if (typeof thrown !== "object" || thrown === null || I.ObjectGetPrototypeOf(thrown) !== I.RangeErrorPrototype) return false;
  const own = I.ObjectGetOwnPropertyDescriptor(thrown, "message");
  const message = own !== undefined && "value" in own ? own.value : undefined;
  for (let i = 0; i < REFUSALS.length; i++) if (message === REFUSALS[i]) return true;
  return false;
}

/** The answers that carry the tool's log lines, taken from its console (`takeLogs` empties it). */
export function createAnswers(takeLogs: () => string[]) {
  /**
   * The tool's result is written first, against the whole budget; its log
   * lines then get what room is left (they never make a result too large: the
   * lines that do not fit are dropped and counted).
   */
  function successAnswer(record: Record<string, unknown>, budget: SerializeBudget): GuestAnswer {
    const text = serialize(record, budget);
    return answerOf("ok", withLogs(text, takeLogs(), budget.maxBytes - text.length));
  }

  /**
   * An error envelope. Never throws and never exceeds its budget: the message
   * and stack come clipped (describe-thrown.ts), the logs are clipped here to
   * their share, and should the record still not fit (JSON escaping can grow a
   * text sixfold) it is written again without logs, then without the stack,
   * then as a fixed text. Only plain strings the runtime made are written.
   */
  function errorAnswer(kind: Exclude<GuestAnswerKind, "ok">, message: string, extra?: { issues?: unknown[]; stack?: string }): GuestAnswer {
    const logs = clipLogs(takeLogs(), ERROR_LOG_CHARS);
    const withStack = [true, false];
    for (let a = 0; a < withStack.length; a++) {
      const record = I.ObjectCreate(null) as Record<string, unknown>;
      record.ok = false;
      record.kind = kind;
      record.message = clipText(message, MESSAGE_MAX_CHARS);
      if (extra?.issues !== undefined) record.issues = extra.issues;
      if (withStack[a] === true && extra?.stack !== undefined) record.stack = clipText(extra.stack, MESSAGE_MAX_CHARS * 2);
      try {
        const text = serialize(record, ERROR_BUDGET);
        return answerOf(kind, withLogs(text, logs, ERROR_BUDGET.maxBytes - text.length));
      } catch {
        // too large once escaped: try again with less
      }
    }
    return answerOf(kind, `{"ok":false,"kind":${I.JSONStringify(kind)},"message":"the tool failed; its error text could not be written within the limit"}`);
  }

  /** Builds the success envelope from what `run` returned. */
  function successRecord(tool: Tool, value: unknown): Record<string, unknown> | GuestAnswer {
    const record = I.ObjectCreate(null) as Record<string, unknown>;
    record.ok = true;
    let structured: unknown;
    if (sdk.isToolResult(value)) {
      const { text, structured: data, details, control, images, audio, resources, links } = value;
      if (text !== undefined && typeof text !== "string") return errorAnswer("tool_error", "toolResult({ text }) must be a string");
      if (text !== undefined) record.text = text;
      structured = data;
      if (details !== undefined) record.details = details;
      if (control !== undefined) record.control = control;
      if (images !== undefined) record.images = images;
      if (audio !== undefined) record.audio = audio;
      if (resources !== undefined) record.resources = resources;
      if (links !== undefined) record.links = links;
    } else if (typeof value === "string") {
      record.text = value;
    } else {
      structured = value;
    }
    if (tool.output !== undefined) {
      const checked = tool.output.safeParse(structured);
      if (!checked.success) {
        const issues = issuesOf(checked.error);
        return errorAnswer(
          "tool_error",
          `the tool's result does not match its output schema (${summarise(issues)}); this is a bug in the tool`,
          { issues },
        );
      }
      structured = checked.data;
    }
    if (structured !== undefined) record.structured = structured;
    return record;
  }

  return { successAnswer, errorAnswer, successRecord };
}
