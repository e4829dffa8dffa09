/**
 * @module test/helpers/host
 * Shared set-up for tests that run real hosts: a host with a private cache
 * folder, closed after the test, and a check that no sandbox worker process
 * outlives it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost, type Host, type HostOptions, type ToolResult } from "../../src/index.js";
import { tinypoolChildPids } from "../../src/pool/process-memory.js";

/** Pids of this process's live sandbox workers (tinypool children), from /proc (Linux; elsewhere none). */
export const childPids = tinypoolChildPids;

export async function assertNoWorkersLeft(before: number[]): Promise<void> {
  const deadline = Date.now() + 3_000;
  let left: number[] = [];
  do {
    left = childPids().filter((pid) => !before.includes(pid));
    if (left.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (Date.now() < deadline);
  assert.deepEqual(left, [], "sandbox worker processes outlived host.close()");
}

/** A temporary folder, removed by the returned function. */
export function tempDir(prefix = "corral-test-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Runs `fn` with a fresh host (one worker unless told otherwise) and a
 * private cache; closes it and checks no worker survived, even if `fn` throws.
 */
export async function withHost<T>(fn: (host: Host) => Promise<T>, options: HostOptions = {}): Promise<T> {
  const before = childPids();
  const cache = tempDir();
  const host = createHost({ workers: 1, cacheDir: join(cache.path, "cache"), ledger: { store: join(cache.path, "ledger.db") }, ...options });
  try {
    return await fn(host);
  } finally {
    await host.close();
    cache.remove();
    await assertNoWorkersLeft(before);
  }
}

/** What a tool of `markedToolSource` answers: the isolate that ran it (an id kept in its own globals), and when. */
export type Mark = { isolate: string; at: number };

export const markedToolSource = (name: string): string =>
  toolSource({ name, run: "globalThis.isolateId ??= Math.random().toString(36).slice(2); return { isolate: globalThis.isolateId, at: Date.now() };" });

export const markOf = (result: ToolResult): Mark => (result.ok ? (result.structured as Mark) : { isolate: "", at: Number.NaN });

/**
 * Bursts of calls of a tool of its own (named `tool`, answering the id of
 * the isolate that ran it) until they run in two isolates: both workers of a
 * two-worker host have booted and serve. A burst may end before the second
 * worker is up, and on a loaded machine that can take seconds. The tool
 * stays loaded, and warm in both workers.
 */
export async function untilBothWorkersServe(host: Host, tool = "boot"): Promise<void> {
  const loaded = await host.load({ source: `agent:${tool}`, code: markedToolSource(tool) });
  assert.ok(loaded.ok, JSON.stringify(loaded));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const results = await Promise.all(Array.from({ length: 64 }, () => host.call(tool, {})));
    assert.ok(
      results.every((result) => result.ok),
      JSON.stringify(results.find((result) => !result.ok)),
    );
    const seen = new Set(results.map((result) => markOf(result).isolate));
    if (seen.size >= 2) return;
    assert.ok(Date.now() < deadline, `after 60 s the calls of ${tool} still ran in one isolate: the second worker never served`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Source text of a one-tool module, for agent-style loads. */
export function toolSource(body: { name: string; run: string; input?: string; effects?: string[]; extra?: string; top?: string }): string {
  return `import { defineTool } from "corral";
import { z } from "zod";
${body.top ?? ""}
export default defineTool({
  name: ${JSON.stringify(body.name)},
  description: "test tool ${body.name}",
  input: ${body.input ?? "z.object({})"},
  effects: ${JSON.stringify(body.effects ?? [])},
  ${body.extra ?? ""}
  async run(input, ctx) { ${body.run} },
});
`;
}
