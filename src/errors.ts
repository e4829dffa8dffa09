/**
 * @module src/errors
 * Misuse of the host throws a CorralError with a string `code`: bad options,
 * a malformed source id, use after close. A tool's own failure is never
 * thrown: it is a ToolResult (see result.ts). Every code has an entry in
 * docs/errors.md.
 */

export const ERROR_CODES = [
  "invalid_options",
  "invalid_source",
  "host_closed",
  "worker_unavailable",
  "ledger_closed",
  "invalid_call_record",
  "ledger_unavailable",
  "invalid_model_response",
  "invalid_argument",
  "not_a_ledger",
  "invalid_tool_name",
  "code_mode_off",
  "invalid_config",
  "not_in_library",
] as const;
export type CorralErrorCode = (typeof ERROR_CODES)[number];

export class CorralError extends Error {
  override name = "CorralError";
  readonly code: CorralErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: CorralErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(`${message} [${code}]`);
    this.code = code;
    this.data = data;
  }
}

/** Thrown by anything used after its close(). */
export class HostClosedError extends CorralError {
  override name = "HostClosedError";
  constructor(what: string) {
    super("host_closed", `${what} was used after close(); create a new host`);
  }
}

/**
 * zod's issues as one line an `invalid_options` or `invalid_argument`
 * message can carry: each issue's path (under the argument's name when one
 * is given, else "(options)" for the object itself) and its message.
 */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[], under?: string): string {
  const at = (path: readonly PropertyKey[]): string => (under === undefined ? path.map(String).join(".") || "(options)" : [under, ...path.map(String)].join("."));
  return issues.map((issue) => `${at(issue.path)}: ${issue.message}`).join("; ");
}
