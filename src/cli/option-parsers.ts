/**
 * @module src/cli/option-parsers
 * How the command line reads its option values (JSON input, ports, counts,
 * positive numbers, non-empty text) and the defaults of its global options.
 * A value it cannot read throws commander's InvalidArgumentError, which
 * commander prints with the option's name: a usage error (exit 2).
 */
import { InvalidArgumentError } from "commander";

/** The host's own default, relative to the config's folder (context-for.ts), else the working directory. */
export const DEFAULT_CACHE_DIR = ".corral/cache";
/** The host's own default, relative to the config's folder (context-for.ts), else the working directory. */
export const DEFAULT_LEDGER_FILE = ".corral/ledger.db";

export function parseJsonInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`it is not valid JSON (${(error as Error).message}).`);
  }
}

export function parsePort(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value > 65_535) throw new InvalidArgumentError("expected a port, 0 to 65535.");
  return value;
}

export function parseCount(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) throw new InvalidArgumentError("expected a whole number, 0 or more.");
  return value;
}

export function parseNonEmpty(what: string): (text: string) => string {
  return (text) => {
    if (text.trim() === "") throw new InvalidArgumentError(`expected ${what}, not an empty string.`);
    return text;
  };
}

export function parsePositive(unit: string): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
      throw new InvalidArgumentError(`expected a positive number of ${unit}.`);
    }
    return value;
  };
}
