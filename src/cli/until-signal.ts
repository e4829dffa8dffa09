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
