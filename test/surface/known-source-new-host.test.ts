/**
 * A new host over the same cache folder loads a source it has seen before
 * without describing it again: the checked manifests come from the folder
 * (`manifestsFrom: "disk"`), and the tool still runs. A manifest file that is
 * garbage, fails the host's check, or was written by another guest runtime is
 * not used: the module is described again and the file repaired.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Host, LoadRequest, LoadResult } from "../../src/index.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";

// Tests run from dist/test/surface/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/text-stats", import.meta.url));
const AGENT: LoadRequest = { source: "agent:echo", code: toolSource({ name: "echo_twice", input: "z.object({ text: z.string() })", run: "return input.text + input.text;" }) };

async function loadOk(host: Host, request: LoadRequest): Promise<Extract<LoadResult, { ok: true }>> {
  const loaded = await host.load(request);
  assert.ok(loaded.ok, loaded.ok ? "" : `${loaded.error.kind}: ${loaded.error.message}`);
  return loaded;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

async function callEcho(host: Host): Promise<void> {
  const result = await host.call("echo_twice", { text: "ab" });
  assert.ok(result.ok, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  assert.equal(result.output, "abab");
}

/** The one manifest file in the cache folder. */
function manifestFile(cacheDir: string): string {
  const names = readdirSync(join(cacheDir, "manifests"));
  assert.equal(names.length, 1, `manifest files: ${names.join(", ")}`);
  return join(cacheDir, "manifests", names[0] as string);
}

/** Runs `fn` with a cache folder shared by every host it starts. */
async function withCacheFolder(fn: (cacheDir: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  try {
    await fn(join(dir.path, "cache"));
  } finally {
    dir.remove();
  }
}

/** A first host describes the agent's source, a second host damages the file with `damage`, a third must describe again and repair it. */
async function assertRepaired(damage: (file: string) => void): Promise<void> {
  await withCacheFolder(async (cacheDir) => {
    await withHost(async (host) => assert.equal((await loadOk(host, AGENT)).manifestsFrom, "worker"), { cacheDir });
    const file = manifestFile(cacheDir);
    const good = readFileSync(file, "utf8");
    damage(file);
    await withHost(
      async (host) => {
        const loaded = await loadOk(host, AGENT);
        assert.equal(loaded.cached, true, "the bundle still comes from the compile cache");
        assert.equal(loaded.manifestsFrom, "worker", "the damaged file must not be used");
        assert.deepEqual(
          loaded.tools.map((t) => [t.name, t.effects]),
          [["echo_twice", []]],
        );
        await callEcho(host);
      },
      { cacheDir },
    );
    assert.equal(readFileSync(manifestFile(cacheDir), "utf8"), good, "the describe wrote the file again");
    await withHost(async (host) => assert.equal((await loadOk(host, AGENT)).manifestsFrom, "disk"), { cacheDir });
  });
}

describe("a known source on a new host", { timeout: 120_000 }, () => {
  it("an agent's source: the second host takes the manifests from the cache folder, and the tool runs", async () => {
    await withCacheFolder(async (cacheDir) => {
      const first = await withHost(
        async (host) => {
          const loaded = await loadOk(host, AGENT);
          assert.equal(loaded.cached, false);
          assert.equal(loaded.manifestsFrom, "worker");
          assert.equal((await loadOk(host, AGENT)).manifestsFrom, "memory", "the same host keeps them in memory");
          await callEcho(host);
          return loaded;
        },
        { cacheDir },
      );
      await withHost(
        async (host) => {
          const loaded = await loadOk(host, AGENT);
          assert.equal(loaded.cached, true);
          assert.equal(loaded.manifestsFrom, "disk");
          assert.equal(loaded.version, first.version);
          assert.deepEqual(loaded.tools, first.tools);
          await callEcho(host);
        },
        { cacheDir },
      );
    });
  });

  it("a module of one tool from the cache folder has its isolate built after it loads: its first call is warm; not for two tools, nor a quarantined source", async () => {
    const PAIR: LoadRequest = {
      source: "agent:pair",
      code: `${toolSource({ name: "pair_a", run: "return 'a';" })}
export const b = defineTool({ name: "pair_b", description: "b", input: z.object({}), effects: [], run: () => "b" });`,
    };
    const QUIET: LoadRequest = { source: "agent:quiet", code: toolSource({ name: "quiet", run: "return 'q';" }) };
    await withCacheFolder(async (cacheDir) => {
      await withHost(
        async (host) => {
          for (const request of [AGENT, PAIR, QUIET]) assert.equal((await loadOk(host, request)).manifestsFrom, "worker");
        },
        { cacheDir },
      );
      await withHost(
        async (host) => {
          assert.equal((await loadOk(host, AGENT)).manifestsFrom, "disk");
          // As an agent's next turn would: a moment later (not a timing
          // assertion: a build still running then is ahead of the call in
          // the same worker).
          await pause();
          const echo = await host.call("echo_twice", { text: "ab" });
          assert.ok(echo.ok, JSON.stringify(echo));
          assert.equal(echo.warm, true, "the first call of a one-tool module loaded from the cache folder built its isolate");
          assert.equal((await loadOk(host, PAIR)).manifestsFrom, "disk");
          await pause();
          const pair = await host.call("pair_a", {});
          assert.equal(pair.warm, false, "a module of two tools is not built ahead (nor kept after a describe)");
          await host.quarantine("agent:quiet", { reason: "test" });
          assert.equal((await loadOk(host, QUIET)).manifestsFrom, "disk");
          await pause();
          await host.release("agent:quiet");
          const quiet = await host.call("quiet", {});
          assert.ok(quiet.ok, JSON.stringify(quiet));
          assert.equal(quiet.warm, false, "nothing of a quarantined source runs ahead of a call");
        },
        { cacheDir },
      );
    });
  });

  it("a plugin folder: the second host takes the manifests from the cache folder, and the tool runs", async () => {
    await withCacheFolder(async (cacheDir) => {
      const first = await withHost(async (host) => loadOk(host, { path: PLUGIN }), { cacheDir });
      assert.equal(first.manifestsFrom, "worker");
      await withHost(
        async (host) => {
          const loaded = await loadOk(host, { path: PLUGIN });
          assert.equal(loaded.manifestsFrom, "disk");
          assert.deepEqual(loaded.tools, first.tools);
          const result = await host.call("text_stats", { text: "one two three" });
          assert.ok(result.ok, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
          assert.equal((result.structured as { words: number }).words, 3);
        },
        { cacheDir },
      );
    });
  });

  it("what the file declares is what the host registers: it is trusted once it passes the check", async () => {
    await withCacheFolder(async (cacheDir) => {
      await withHost(async (host) => loadOk(host, AGENT), { cacheDir });
      const file = manifestFile(cacheDir);
      const stored = JSON.parse(readFileSync(file, "utf8"));
      stored.manifests[0].description = "written into the cache folder";
      writeFileSync(file, JSON.stringify(stored));
      await withHost(
        async (host) => {
          const loaded = await loadOk(host, AGENT);
          assert.equal(loaded.manifestsFrom, "disk");
          assert.equal(loaded.tools[0]?.description, "written into the cache folder");
        },
        { cacheDir },
      );
    });
  });

  it("a manifest file of garbage is described again and repaired", async () => {
    await assertRepaired((file) => writeFileSync(file, "{ this is not json"));
  });

  it("a manifest file that fails the host's check is described again and repaired", async () => {
    await assertRepaired((file) => {
      const stored = JSON.parse(readFileSync(file, "utf8"));
      stored.manifests[0].name = "not a tool name!";
      stored.manifests[0].effects = "everything";
      writeFileSync(file, JSON.stringify(stored));
    });
  });

  it("a manifest file written by another guest runtime is not used", async () => {
    await assertRepaired((file) => {
      const stored = JSON.parse(readFileSync(file, "utf8"));
      assert.match(stored.runtime, /^[0-9a-f]{64}$/);
      // What a file of another runtime holds: same bundle, that runtime's identity.
      stored.runtime = "0".repeat(64);
      stored.manifests[0].effects = ["exec"];
      writeFileSync(file, JSON.stringify(stored));
    });
  });
});
