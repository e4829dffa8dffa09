/**
 * @module src/pool/tinypool-child.test
 * Which pids the host adopts as its sandbox workers, and what it learns of
 * one's end, on real child processes shaped as tinypool's threads are (a
 * `child_process` runtime, the pid as `threadId`, events passed to the
 * ChildProcess, the process in the field tinypool keeps it in).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { TinypoolWorker } from "tinypool";
import { findTinypoolChild } from "./tinypool-child.js";
import { isOwnWorkerProcess, tinypoolChildPids } from "./process-memory.js";

/** A child whose command line names tinypool's entry, as every worker's does, and that lives until killed. */
function spawnMarked(marker = "tinypool/dist/entry/process.js"): ChildProcess {
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], { stdio: "pipe" });
}

/** What tinypool's ProcessWorker exposes of a child, public fields and the private `process`. */
function threadOf(child: ChildProcess, runtime = "child_process"): TinypoolWorker {
  return {
    runtime,
    threadId: child.pid ?? -1,
    process: child,
    once: (event: string, listener: (...args: unknown[]) => void) => child.once(event, listener),
  } as unknown as TinypoolWorker;
}

describe("findTinypoolChild", { timeout: 20_000, skip: process.platform !== "linux" && "reads /proc" }, () => {
  it("adopts a child of this process started through tinypool's entry, and hears its exit code, signal and closed output", async () => {
    const child = spawnMarked();
    try {
      const found = findTinypoolChild([threadOf(child)], child.pid ?? -1);
      assert.ok(found !== undefined);
      assert.equal(found.pid, child.pid);
      assert.ok(found.output?.stderr !== undefined && found.output.stdout !== undefined);
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => found.onceExit((code, signal) => resolve([code, signal])));
      const closed = new Promise<void>((resolve) => found.onceClose(resolve));
      child.kill("SIGKILL");
      assert.deepEqual(await exited, [null, "SIGKILL"]);
      await closed;
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("refuses a pid no thread has, a thread that is not a child process, and a process that is not tinypool's", async () => {
    const marked = spawnMarked();
    const unmarked = spawnMarked("something-else");
    try {
      assert.equal(findTinypoolChild([threadOf(marked)], process.pid), undefined, "a pid no thread has");
      assert.equal(findTinypoolChild([threadOf(marked, "worker_threads")], marked.pid ?? -1), undefined, "a worker thread's id is not a pid");
      assert.equal(findTinypoolChild([threadOf(unmarked)], unmarked.pid ?? -1), undefined, "not started through tinypool's entry");
      assert.equal(isOwnWorkerProcess(process.pid), false, "this process is nobody's worker here");
      const listed = tinypoolChildPids();
      assert.ok(listed.includes(marked.pid ?? -1) && !listed.includes(unmarked.pid ?? -1), "the census counts tinypool's children only");
    } finally {
      marked.kill("SIGKILL");
      unmarked.kill("SIGKILL");
      await Promise.all([once(marked, "exit"), once(unmarked, "exit")]);
    }
  });

  it("answers no streams, not a failure, should tinypool keep its child elsewhere", () => {
    const child = spawnMarked();
    try {
      const thread = { ...threadOf(child), process: undefined } as unknown as TinypoolWorker;
      const found = findTinypoolChild([thread], child.pid ?? -1);
      assert.ok(found !== undefined);
      assert.equal(found.output, undefined);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
