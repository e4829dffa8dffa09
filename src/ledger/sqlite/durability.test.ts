/**
 * @module src/ledger/sqlite/durability.test
 * A host killed at any moment loses at most the call in flight: the SQLite
 * ledger (testing/kill-check.ts), whose file must also pass SQLite's own
 * integrity check after the kill.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { checkKilledLoop } from "../testing/kill-check.js";
import { tempDir } from "../testing/fixtures.js";

const dir = tempDir();
after(() => dir.remove());

describe("the SQLite ledger survives SIGKILL", { timeout: 60_000 }, () => {
  for (const killAfter of [300, 1_500, 4_000]) {
    it(`loses at most the call in flight when killed after ${killAfter} reported records`, async (t) => {
      const path = join(dir.path, `killed-${killAfter}.db`);
      await checkKilledLoop(t, path, killAfter, () => {
        const raw = new Database(path, { readonly: true });
        assert.equal(raw.pragma("integrity_check", { simple: true }), "ok");
        raw.close();
      });
    });
  }
});
