/**
 * A host without a cache folder hands its workers each bundle's code inline.
 * It does so once per worker, not with every call: the worker keeps the last
 * BUNDLE_WINDOW bundles it was sent and the host mirrors that window. A
 * bundle the worker has let go since is sent again, so its calls still run.
 * The bytes the host process writes (/proc/self/io; its ledger kept in
 * memory, so that messages to its workers are nearly all it writes) show what
 * crossed the boundary.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Host, LoadRequest } from "../../src/index.js";
import { BUNDLE_WINDOW } from "../../sandbox/shared/tuning.js";
import { toolSource, withHost } from "../helpers/host.js";

const NO_CACHE = { cacheDir: false } as const;

/** Bytes this process has written so far, by any write (messages to its workers included). */
function bytesWritten(): number {
  const io = readFileSync("/proc/self/io", "utf8");
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1] ?? Number.NaN);
}

async function loadOk(host: Host, request: LoadRequest): Promise<void> {
  const loaded = await host.load(request);
  assert.ok(loaded.ok, loaded.ok ? "" : `${loaded.error.kind}: ${loaded.error.message}`);
}

async function callOk(host: Host, tool: string, expected: unknown): Promise<void> {
  const result = await host.call(tool, {});
  assert.ok(result.ok, result.ok ? "" : `${tool}: ${result.error.kind}: ${result.error.message}`);
  assert.equal(result.output, JSON.stringify(expected));
}

describe("inline bundles (a host without a cache folder)", { timeout: 120_000 }, () => {
  it("a worker is sent a bundle's code once, not with every call", async () => {
    const padding = "x".repeat(256 * 1024);
    const code = toolSource({ name: "big_bundle", top: `const PADDING = ${JSON.stringify(padding)};`, run: "return PADDING.length;" });
    await withHost(async (host) => {
      await loadOk(host, { source: "agent:big", code });
      await callOk(host, "big_bundle", padding.length);
      const start = bytesWritten();
      const calls = 20;
      for (let i = 0; i < calls; i++) await callOk(host, "big_bundle", padding.length);
      const written = bytesWritten() - start;
      // With the code in every call this would be at least calls × 256 KB.
      assert.ok(written < padding.length, `the host wrote ${written} bytes for ${calls} calls of a ${padding.length}-byte bundle`);
    }, { ...NO_CACHE, ledger: { store: false } });
  });

  it("a bundle the worker has let go is sent again with its next call", async () => {
    await withHost(async (host) => {
      const tool = (i: number) => `window_${i}`;
      const load = (i: number) => loadOk(host, { source: `agent:window-${i}`, code: toolSource({ name: tool(i), run: `return ${i};` }) });
      await load(0);
      await callOk(host, tool(0), 0);
      // Each load sends a new bundle to the one worker: the first one leaves its window.
      for (let i = 1; i <= BUNDLE_WINDOW; i++) await load(i);
      await callOk(host, tool(0), 0);
      await callOk(host, tool(BUNDLE_WINDOW), BUNDLE_WINDOW);
      await callOk(host, tool(1), 1);
    }, NO_CACHE);
  });
});
