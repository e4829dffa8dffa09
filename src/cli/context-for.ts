/**
 * @module src/cli/context-for
 * Builds the CliContext a command runs with from the global options and
 * the config: the one place that decides which corral.json counts and what
 * overrides what.
 *
 * ```
 * --no-config ─────────────────▶ no config
 * --config FILE ───────────────▶ that file (it must exist)
 * else ────────────────────────▶ the nearest corral.json from the working folder up, if any
 * then, for every setting:   flag  >  corral.json (relative to its folder)  >  default
 *                            (relative to the config's folder, else the working folder)
 * ```
 *
 * The config is read and checked in full here, before a command starts
 * anything: a bad one throws `invalid_config` (exit 2).
 */
import { join } from "node:path";
import { findConfigFile, readConfig, type LoadedConfig } from "../config/index.js";
import type { CliContext, CliIo } from "./context.js";
import { createCliLogger } from "./logger.js";
import { DEFAULT_CACHE_DIR, DEFAULT_LEDGER_FILE } from "./option-parsers.js";

export type GlobalOptions = {
  verbose?: boolean;
  cacheDir?: string;
  ledger?: string;
  /** A file from --config, false from --no-config, undefined: look for one. */
  config?: string | false;
};

export function buildContext(globals: GlobalOptions, io: CliIo, closed: AbortSignal): CliContext {
  const logger = createCliLogger({ verbose: globals.verbose === true, envLevel: process.env.CORRAL_LOG });
  const config = configOf(globals.config);
  const base = config?.dir;
  const store = config?.config.ledger?.store;
  return {
    io,
    closed,
    logger,
    config,
    hostOptions: config?.host ?? {},
    cacheDir: globals.cacheDir ?? config?.config.cacheDir ?? (base === undefined ? DEFAULT_CACHE_DIR : join(base, DEFAULT_CACHE_DIR)),
    ledgerFile: globals.ledger ?? (store === false ? ":memory:" : store) ?? (base === undefined ? DEFAULT_LEDGER_FILE : join(base, DEFAULT_LEDGER_FILE)),
    progress: (step) => void io.stderr.write(`corral: ${step} …\n`),
  };
}

function configOf(given: string | false | undefined): LoadedConfig | undefined {
  if (given === false) return undefined;
  const file = given ?? findConfigFile();
  return file === undefined ? undefined : readConfig(file);
}
