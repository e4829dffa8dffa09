/**
 * @module src/ledger/postgres/durability.test
 * The PostgreSQL ledger survives SIGKILL as SQLite does
 * (testing/kill-check.ts): a record's promise settles after its COMMIT, so
 * a host killed mid-burst loses no record whose call had returned.
 */
import { after, describe, it } from "node:test";
import { checkKilledLoop } from "../testing/kill-check.js";
import { SKIP_POSTGRES, TEST_POSTGRES_URL, testSchemas } from "../testing/postgres.js";

const schemas = testSchemas("kill");
after(() => schemas.dropAll());

describe("the PostgreSQL ledger survives SIGKILL", { timeout: 120_000, skip: SKIP_POSTGRES }, () => {
  for (const killAfter of [300, 1_500]) {
    it(`loses at most the call in flight when killed after ${killAfter} reported records`, async (t) => {
      const url = `${TEST_POSTGRES_URL}${TEST_POSTGRES_URL?.includes("?") ? "&" : "?"}schema=${schemas.next()}`;
      await checkKilledLoop(t, url, killAfter);
    });
  }
});
