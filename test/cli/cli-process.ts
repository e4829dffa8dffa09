/**
 * @module test/cli/cli-process
 * Runs the real `corral` bin as a child process, the way a user does, with
 * a private cache folder, and collects its exit code and output. Also the
 * small tool files the CLI tests write into temporary folders.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The compiled test sits in dist/test/cli/; the bin is at the package root. */
export const BIN = fileURLToPath(new URL("../../../bin/corral.js", import.meta.url));
/** A CLI that has not exited by then left a host (and its workers) open. */
const CLI_DEADLINE_MS = 60_000;

export type CliRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number };

export type CliRunOptions = {
  cwd: string;
  /** Put before the command as `--cache-dir`; omitted when undefined. */
  cacheDir?: string;
  env?: Record<string, string>;
};

export function runCli(args: string[], options: CliRunOptions): Promise<CliRun> {
  const started = performance.now();
  const globals = options.cacheDir === undefined ? [] : ["--cache-dir", options.cacheDir];
  // CORRAL_LOG from the developer's shell would change what stderr holds.
  const { CORRAL_LOG: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [BIN, ...globals, ...args], {
    cwd: options.cwd,
    env: { ...env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const deadline = setTimeout(() => child.kill("SIGKILL"), CLI_DEADLINE_MS);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** Source text of a module with one tool, importing only what tools may import. */
export function toolModule(body: { name: string; run: string; input?: string; top?: string; description?: string }): string {
  return `import { defineTool } from "corral";
import { z } from "zod";
${body.top ?? ""}
export default defineTool({
  name: ${JSON.stringify(body.name)},
  description: ${JSON.stringify(body.description ?? `test tool ${body.name}`)},
  input: ${body.input ?? "z.object({})"},
  effects: [],
  run(input) { ${body.run} },
});
`;
}

export function writeTool(dir: string, file: string, source: string): string {
  const path = join(dir, file);
  writeFileSync(path, source);
  return path;
}
