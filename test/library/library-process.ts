/**
 * @module test/library/library-process
 * A library host (test/helpers/library-host.ts) in a child process, asked
 * one line at a time: each command's one reply line is its answer.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const LIBRARY_HOST = fileURLToPath(new URL("../helpers/library-host.js", import.meta.url));

export type LibraryProcess = {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<void>;
  ask(line: string): Promise<string>;
  /** Asks until the answer matches, or fails after `ms`; answers the time it took. */
  askUntil(line: string, pattern: RegExp, ms: number): Promise<number>;
  stop(): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export function startLibraryHost(store: string, maxTools = 20): LibraryProcess {
  const child = spawn(process.execPath, [LIBRARY_HOST, store, String(maxTools)], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const waiting: ((line: string) => void)[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (line === "ready") markReady();
    else waiting.shift()?.(line);
  });
  const ask = (line: string) =>
    new Promise<string>((resolve, reject) => {
      waiting.push(resolve);
      child.stdin.write(`${line}\n`);
      void exited.then(({ code, signal }) => reject(new Error(`the library host exited (${code ?? signal}) before answering "${line}"; stderr: ${stderr.slice(-2_000)}`)));
    });
  return {
    child,
    ready: Promise.race([ready, exited.then(() => Promise.reject(new Error(`the library host exited before it was ready; stderr: ${stderr.slice(-2_000)}`)))]),
    ask,
    async askUntil(line, pattern, ms) {
      const started = performance.now();
      let last = "";
      while (performance.now() - started < ms) {
        last = await ask(line);
        if (pattern.test(last)) return performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`"${line}" did not answer ${pattern} within ${ms} ms; last: ${last}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.stdin.write("exit\n");
      await exited;
    },
    exited,
  };
}
