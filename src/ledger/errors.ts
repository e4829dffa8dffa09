/**
 * @module src/ledger/errors
 * The ledger's misuse errors: use after close, a call record that does not
 * parse, and a store that cannot be read or written (a locked or corrupt
 * database, a schema from a newer corral). All are CorralErrors with a code.
 */
import { CorralError } from "../errors.js";

/** Thrown by a Ledger or a LedgerStore used after its close(). */
export class LedgerClosedError extends CorralError {
  override name = "LedgerClosedError";
  constructor(what: string) {
    super("ledger_closed", `${what} was used after close(); open a new ledger`);
  }
}

/** A record() argument that does not parse: a bug in the caller, never a tool's doing. */
export class InvalidCallRecordError extends CorralError {
  override name = "InvalidCallRecordError";
  constructor(detail: string, issues: unknown) {
    super("invalid_call_record", `the call record is invalid (${detail}); pass a CallRecord as documented in src/ledger/types.ts`, { issues });
  }
}

/**
 * The store failed underneath: SQLite stayed busy past its timeout, the disk
 * is full, or the file was written by a newer schema. `data.cause` keeps the
 * driver's code so callers can tell a busy database from a broken one.
 */
export class LedgerUnavailableError extends CorralError {
  override name = "LedgerUnavailableError";
  constructor(message: string, data: Record<string, unknown> = {}) {
    super("ledger_unavailable", message, data);
  }
}

/**
 * A file (or a PostgreSQL schema) given as a ledger that is none: missing,
 * not SQLite, SQLite without the ledger's tables, a schema no corral made.
 * Nothing was written to it. `path` is a file, or a URL without its password.
 */
export class NotALedgerError extends CorralError {
  override name = "NotALedgerError";
  constructor(path: string, why: string) {
    super("not_a_ledger", `${path} is not a corral ledger (${why}); point --ledger at the file or postgres:// URL a host records its calls in`, { path, why });
  }
}
