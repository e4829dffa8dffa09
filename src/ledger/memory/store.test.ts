/**
 * @module src/ledger/memory/store.test
 * MemoryLedgerStore: the shared store suite, and the options that choose it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Ledger } from "../ledger.js";
import { MemoryLedgerStore } from "./store.js";
import { runStoreSuite } from "../store.case.js";
import { makeCall, tempDir } from "../testing/fixtures.js";

runStoreSuite("MemoryLedgerStore", () => new MemoryLedgerStore());

describe("MemoryLedgerStore as the Ledger's store", { timeout: 60_000 }, () => {
  for (const store of [false, ":memory:"] as const) {
    it(`is what store: ${JSON.stringify(store)} opens: no file is written, nothing outlives the ledger`, async () => {
      const cwd = process.cwd();
      const work = tempDir();
      process.chdir(work.path);
      try {
        const ledger = new Ledger({ store });
        for (let i = 0; i < 3; i++) await ledger.record(makeCall({ outcome: "timeout", at: Date.now() }));
        assert.equal((await ledger.check("agent:alpha")).state, "quarantined");
        await ledger.close();
        assert.equal(existsSync(join(work.path, ".corral")), false);
        assert.equal(existsSync(join(work.path, ":memory:")), false);
        const fresh = new Ledger({ store });
        assert.equal((await fresh.check("agent:alpha")).state, "active");
        await fresh.close();
      } finally {
        process.chdir(cwd);
        work.remove();
      }
    });
  }
});
