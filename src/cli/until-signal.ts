/**
 * @module src/cli/until-signal
 * The long-running commands (`corral mcp --http`, `corral dashboard`) serve
 * until the user stops them: this resolves at the first SIGINT or SIGTERM
 * and leaves no listener behind, so the command can close what it opened.
 */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve();
    };
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
}

/**
 * From here to the process's exit, SIGTERM no longer ends it: the command is
 * already closing (its host writes the records of calls it was running, its
 * ledger commits). A client that signals while it waits for the server to go
 * (the MCP SDK sends SIGTERM 2 s after closing stdin) would otherwise cut
 * that short. A person's Ctrl-C still ends it (exit 130), as does SIGKILL.
 */
export function holdSignalsWhileClosing(): void {
  process.on("SIGTERM", () => undefined);
  process.once("SIGINT", () => process.exit(130));
}
