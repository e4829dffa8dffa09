/**
 * @module test/hostile/top-level-memory.test
 * A module's top level is checked against the memory its calls run under
 * (issue 27, item 6). The rule, for any top level and any call limit: a
 * load answers `ok` only if the tool's calls can run that top level, so
 * either the load is refused `memory` with a message naming both figures
 * (the call's limit and loadMemoryMb), or its calls answer without a memory
 * verdict; never a load `ok` followed by a strike on every call. Checked
 * for a tool's own limits.memoryMb, for the host's defaultMemoryMb, for the
 * tightest of two tools in one module, and for manifests taken from the
 * disk cache (a second host, nothing described again).
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost, type Host, type HostOptions } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir } from "../helpers/host.js";

const dir = tempDir("corral-top-memory-");
after(() => dir.remove());

/** A module whose top level keeps about `mb` MB (arrays of 16,384 small integers, 128 KiB each) and whose tools have these limits. */
function moduleOf(mb: number, tools: { name: string; memoryMb?: number }[]): string {
  const defs = tools.map(
    (tool) => `defineTool({ name: ${JSON.stringify(tool.name)}, description: "keeps its top level", input: z.object({}), effects: [],
      ${tool.memoryMb === undefined ? "" : `limits: { memoryMb: ${tool.memoryMb} },`} run: () => ({ kept: kept.length }) })`,
  );
  return `import { defineTool } from "corral"; import { z } from "zod";
const kept = []; for (let i = 0; i < ${mb * 8}; i++) kept.push(new Array(16384).fill(i));
export default [${defs.join(", ")}];`;
}

async function withTopHost(options: HostOptions, fn: (host: Host) => Promise<void>): Promise<void> {
  const before = childPids();
  const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: false }, ...options });
  try {
    await fn(host);
  } finally {
    await host.close();
    await assertNoWorkersLeft(before);
  }
}

let n = 0;

/** Loads the module and checks the rule; answers whether it loaded. */
async function checkRule(host: Host, code: string, names: string[], refuseAt: { mb: number; loadMb: number } | undefined): Promise<boolean> {
  const source = `agent:top-${++n}`;
  const loaded = await host.load({ source, code });
  if (refuseAt !== undefined) {
    assert.equal(loaded.ok, false, `loaded, where its top level does not fit ${refuseAt.mb} MB`);
    if (!loaded.ok) {
      assert.equal(loaded.error.kind, "memory");
      assert.ok(loaded.error.message.includes(`${refuseAt.mb} MB`) && loaded.error.message.includes(`${refuseAt.loadMb} MB`), loaded.error.message);
    }
    // Nothing was registered, and no strike was recorded against the source.
    assert.equal((await host.auditSource(source))?.totals.strikes ?? 0, 0);
    return false;
  }
  assert.ok(loaded.ok, JSON.stringify(loaded).slice(0, 400));
  for (const name of names) {
    for (let i = 0; i < 2; i++) {
      const result = await host.call(name, {});
      assert.ok(result.ok, `${name}: ${JSON.stringify(result).slice(0, 300)}`);
    }
  }
  return true;
}

describe("a module's top level is checked against its calls' memory limit", { timeout: 170_000 }, () => {
  it("the tool's own limits.memoryMb: refused at load when the top level does not fit, calls answer when it does", async () => {
    await withTopHost({}, async (host) => {
      await checkRule(host, moduleOf(1, [{ name: "small_16", memoryMb: 16 }]), ["small_16"], undefined);
      await checkRule(host, moduleOf(20, [{ name: "mid_16", memoryMb: 16 }]), [], { mb: 16, loadMb: 64 });
      await checkRule(host, moduleOf(20, [{ name: "mid_48", memoryMb: 48 }]), ["mid_48"], undefined);
      await checkRule(host, moduleOf(36, [{ name: "big_24", memoryMb: 24 }]), [], { mb: 24, loadMb: 64 });
      await checkRule(host, moduleOf(36, [{ name: "big_default" }]), ["big_default"], undefined);
    });
  });

  it("the host's defaultMemoryMb, and the tightest of two tools in one module", async () => {
    await withTopHost({ defaultMemoryMb: 16 }, async (host) => {
      await checkRule(host, moduleOf(20, [{ name: "by_default" }]), [], { mb: 16, loadMb: 64 });
      await checkRule(host, moduleOf(20, [{ name: "roomy", memoryMb: 64 }, { name: "tight", memoryMb: 16 }]), [], { mb: 16, loadMb: 64 });
      await checkRule(host, moduleOf(20, [{ name: "roomy_a", memoryMb: 64 }, { name: "roomy_b", memoryMb: 48 }]), ["roomy_a", "roomy_b"], undefined);
    });
  });

  it("manifests from the disk cache are checked too (a second host)", async () => {
    const code = moduleOf(20, [{ name: "cached_tight", memoryMb: 16 }]);
    // The first host describes it and writes the checked manifests (before the second run refuses it); the second takes them from disk.
    await withTopHost({}, async (host) => {
      await checkRule(host, code, [], { mb: 16, loadMb: 64 });
    });
    await withTopHost({}, async (host) => {
      await checkRule(host, code, [], { mb: 16, loadMb: 64 });
    });
  });
});
