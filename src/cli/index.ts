/**
 * @module src/cli
 * The command line, for bin/corral.js and for tests that run it in-process.
 */
export { main } from "./main.js";
export { EXIT, type CliIo, type ExitCode, type OutputStream } from "./context.js";
