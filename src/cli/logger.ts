/**
 * @module src/cli/logger
 * The CLI's pino logger, handed to createHost({ logger }). Quiet unless
 * `--verbose` or CORRAL_LOG=<level> asks; then JSON lines on stderr, or
 * pino-pretty's text when stderr is a terminal.
 *
 * Both streams write synchronously on the main thread (no worker transport):
 * the CLI returns its exit code and lets the process end on its own, and a
 * synchronous stream has nothing left to flush by then.
 */
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { UsageError } from "./context.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `--verbose` means everything the host says, including its workers' own output. */
const VERBOSE_LEVEL: LogLevel = "debug";
const STDERR_FD = 2;

export type CliLoggerOptions = {
  verbose: boolean;
  /** The value of CORRAL_LOG, if set; it wins over `--verbose`, being the more specific. */
  envLevel: string | undefined;
  /** @default process.stderr.isTTY */
  pretty?: boolean;
};

export function createCliLogger(options: CliLoggerOptions): Logger {
  const level = chooseLevel(options);
  if (level === "silent") return pino({ level });
  const usePretty = options.pretty ?? process.stderr.isTTY === true;
  const destination = usePretty
    ? pretty({ destination: STDERR_FD, sync: true, colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" })
    : pino.destination({ dest: STDERR_FD, sync: true });
  return pino({ level, name: "corral" }, destination);
}

function chooseLevel(options: CliLoggerOptions): LogLevel {
  const fromEnv = options.envLevel?.trim().toLowerCase();
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!isLogLevel(fromEnv)) {
      throw new UsageError(`CORRAL_LOG="${options.envLevel}" is not a log level; use one of ${LOG_LEVELS.join(", ")}`);
    }
    return fromEnv;
  }
  return options.verbose ? VERBOSE_LEVEL : "silent";
}

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
