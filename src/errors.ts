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
  "not_a_ledger",
  "invalid_tool_name",
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
 * zod's issues as one line an `invalid_options` message can carry: each
 * issue's path (or "(options)" for the object itself) and its message.
 */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((issue) => `${issue.path.map(String).join(".") || "(options)"}: ${issue.message}`).join("; ");
}
