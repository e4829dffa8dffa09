/**
 * @module src/cli/commands/dashboard
 * `corral dashboard [--port N] [--token T]`: serves the audit dashboard of
 * the ledger (--ledger: a SQLite file or a postgres:// URL, never printed
 * with its password) on 127.0.0.1 until interrupted. The token is
 * --token, else CORRAL_DASHBOARD_TOKEN, else a random one; the address
 * printed carries it in its fragment, which the browser never sends on.
 * Quarantines and releases made on the page are the ledger's events under
 * `dashboard:<login>`.
 */
import { createDashboard } from "../../dashboard/index.js";
import { CorralError } from "../../errors.js";
import { CliFailure, EXIT, ledgerLabel, UsageError, writeLines, type CliContext, type ExitCode } from "../context.js";
import { defaultActor } from "./quarantine.js";
import { whenAborted } from "../closed-output.js";
import { untilSignal } from "../until-signal.js";

export const DASHBOARD_TOKEN_ENV = "CORRAL_DASHBOARD_TOKEN";

export type DashboardCliOptions = {
  /** @default 0 (any free port) */
  port?: number;
  token?: string;
  /** Resolves when the dashboard should stop; default: SIGINT or SIGTERM. */
  stop?: Promise<unknown>;
};

export async function dashboardCommand(given: DashboardCliOptions, context: CliContext): Promise<ExitCode> {
  const port = given.port ?? context.config?.config.dashboard?.port;
  const options: DashboardCliOptions = { ...given, ...(port === undefined ? {} : { port }) };
  const fromEnv = process.env[DASHBOARD_TOKEN_ENV];
  const token = options.token ?? (fromEnv === undefined || fromEnv === "" ? undefined : fromEnv);
  let dashboard;
  try {
    dashboard = await createDashboard({
      ledger: context.ledgerFile,
      port: options.port ?? 0,
      actor: defaultActor("dashboard"),
      ...(token === undefined ? {} : { token }),
    });
  } catch (error) {
    if (error instanceof CorralError && error.code === "invalid_options") throw new UsageError(error.message);
    if (error instanceof CorralError) throw new CliFailure(error.message);
    if ((error as { code?: string }).code === "EADDRINUSE") throw new CliFailure(`port ${options.port} is in use; pick another with --port, or 0 for any free one`);
    throw error;
  }
  try {
    // Listening before the page is announced: whoever reads the address may signal at once.
    const stopped = options.stop ?? Promise.race([untilSignal(), whenAborted(context.closed)]);
    const told = options.token !== undefined ? "--token" : token !== undefined ? DASHBOARD_TOKEN_ENV : null;
    writeLines(context.io.stdout, [
      `corral dashboard of ${ledgerLabel(context.ledgerFile)}`,
      told === null ? `open ${dashboard.openUrl}` : `open ${dashboard.url} with the token from ${told} (${dashboard.url}#token=<token>)`,
      "(Ctrl-C to stop)",
    ]);
    await stopped;
    return EXIT.ok;
  } finally {
    await dashboard.close();
  }
}

