/**
 * The store's change counter: it moves when another connection commits and
 * stays when this one does, which is what lets a host keep what its own
 * records told it and still see a CLI's quarantine at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Ledger } from "./ledger.js";
import { MemoryLedgerStore } from "./memory/store.js";
import { SqliteLedgerStore } from "./sqlite/store.js";
import { makeCall, tempDir } from "./testing/fixtures.js";

describe("changesElsewhere", { timeout: 60_000 }, () => {
  it("SQLite: unchanged by this connection's commits, changed by another's", async () => {
    const dir = tempDir();
    const path = join(dir.path, "ledger.db");
    const mine = new Ledger({ store: new SqliteLedgerStore({ path }) });
    const theirs = new Ledger({ store: new SqliteLedgerStore({ path }) });
    try {
      const start = mine.changesElsewhere();
      assert.equal(typeof start, "number");
      await mine.record(makeCall({ source: "agent:one" }));
      await mine.quarantine("agent:one", { reason: "mine", actor: "test" });
      assert.equal(mine.changesElsewhere(), start, "my own commits do not move it");
      await theirs.release("agent:one", { actor: "cli" });
      assert.notEqual(mine.changesElsewhere(), start, "another connection's commit moves it");
      assert.equal((await mine.check("agent:one")).state, "active");
    } finally {
      await mine.close();
      await theirs.close();
      dir.remove();
    }
  });

  it("memory: never changes", async () => {
    const ledger = new Ledger({ store: new MemoryLedgerStore() });
    const start = ledger.changesElsewhere();
    await ledger.record(makeCall());
    assert.equal(ledger.changesElsewhere(), start);
    await ledger.close();
  });
});
