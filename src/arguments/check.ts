/**
 * @module src/arguments/check
 * One helper for every public function's argument check: parse with the
 * method's zod schema, and on failure throw a CorralError
 * (`invalid_argument`) that names the method, the argument and what was
 * expected, so a caller never meets a TypeError raised somewhere inside.
 */
import type { z } from "zod";
import { CorralError, describeIssues } from "../errors.js";

/** A short, safe description of what was given (never calls the value's own methods). */
export function describeGiven(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? "…" : ""}`;
    case "object":
      return "an object";
    case "undefined":
      return "nothing";
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Parses `value` as the argument `argument` of `method`; throws
 * CorralError("invalid_argument") saying what `method` expects otherwise.
 */
export function checkArgument<T extends z.ZodType>(method: string, argument: string, schema: T, value: unknown, expected: string): z.infer<T> {
  let parsed: ReturnType<T["safeParse"]>;
  try {
    parsed = schema.safeParse(value) as ReturnType<T["safeParse"]>;
  } catch {
    // A Proxy or a getter that throws while zod reads it.
    parsed = { success: false } as ReturnType<T["safeParse"]>;
  }
  if (parsed.success) return parsed.data as z.infer<T>;
  const issues = parsed.error?.issues ?? [];
  const detail = describeIssues(issues.slice(0, 5), argument);
  throw new CorralError(
    "invalid_argument",
    `${method} expects ${argument} to be ${expected}; it was given ${describeGiven(value)}${detail === "" ? "" : ` (${detail})`}`,
    { method, argument, issues },
  );
}

/**
 * As checkArgument for an argument that may be left out (undefined, as
 * zod's `.optional()`). Use this rather than `schema.optional()` at the call:
 * that builds a new schema on every call (~5–10 µs a warm `host.call` paid twice).
 */
export function checkOptionalArgument<T extends z.ZodType>(method: string, argument: string, schema: T, value: unknown, expected: string): z.infer<T> | undefined {
  return value === undefined ? undefined : checkArgument(method, argument, schema, value, expected);
}
