/**
 * @module sandbox/guest/describe-thrown
 * Turns anything a tool threw into a short, plain message and stack text,
 * inside the isolate. A thrown object may have a hostile `toString`, `name`,
 * `message` or `stack` (a getter that throws, or returns an object): every
 * read is guarded, and only strings come out.
 */
import { intrinsics as I } from "./intrinsics.js";
import { serialize } from "./serialize.js";

export const MESSAGE_MAX_CHARS = 2000;
const STACK_MAX_LINES = 12;

export type ThrownDescription = { message: string; stack?: string };

function read(target: object, key: string): unknown {
  try {
    return (target as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${I.stringSlice(text, 0, max)}… (cut)` : text;
}

export function describeThrown(thrown: unknown): ThrownDescription {
  if (thrown === null || (typeof thrown !== "object" && typeof thrown !== "function")) {
    // Primitives convert without running tool code (String(symbol) is allowed).
    return { message: clip(I.String(thrown), MESSAGE_MAX_CHARS) };
  }
  const name = read(thrown, "name");
  const message = read(thrown, "message");
  const stack = read(thrown, "stack");
  let text: string;
  if (typeof message === "string") {
    text = typeof name === "string" && name !== "" ? `${name}: ${message}` : message;
  } else {
    text = fallbackText(thrown);
  }
  const description: ThrownDescription = { message: clip(text, MESSAGE_MAX_CHARS) };
  if (typeof stack === "string") {
    description.stack = clip(firstLines(stack, STACK_MAX_LINES), MESSAGE_MAX_CHARS * 2);
  }
  return description;
}

/** The first `count` lines of `text`, cut with indexOf (split would consult a tool's Symbol.split). */
function firstLines(text: string, count: number): string {
  let end = -1;
  for (let i = 0; i < count; i++) {
    end = I.stringIndexOf(text, "\n", end + 1);
    if (end < 0) return text;
  }
  return I.stringSlice(text, 0, end);
}

function fallbackText(thrown: object): string {
  try {
    return `a non-Error value was thrown: ${serialize(thrown, { maxBytes: 500, maxDepth: 4 })}`;
  } catch {
    return "a value was thrown that cannot be described";
  }
}
