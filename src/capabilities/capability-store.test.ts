/**
 * @module src/capabilities/capability-store.test
 * The shared capability-store suite against memory, a real SQLite file and
 * the real PostgreSQL (each suite's test in a fresh schema).
 */
import { after, it } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { capabilityStoreSuite } from "./capability-store.case.js";
import { MemoryCapabilityStore } from "./memory-capability-store.js";
import { SqliteCapabilityStore } from "./sqlite-capability-store.js";
import { PostgresCapabilityStore } from "./postgres-capability-store.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../ledger/testing/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "corral-capstore-"));
after(() => rmSync(dir, { recursive: true, force: true }));

capabilityStoreSuite("memory", () => new MemoryCapabilityStore());
let n = 0;
capabilityStoreSuite(
  "sqlite",
  () => new SqliteCapabilityStore(join(dir, `ledger-${++n}.db`)),
  () => new SqliteCapabilityStore(join(dir, `ledger-${n}.db`)),
);

if (SKIP_POSTGRES !== false) {
  it("postgres capability store", { skip: SKIP_POSTGRES }, () => undefined);
} else {
  const schemas = testSchemas("capstore");
  after(() => schemas.dropAll());
  let schema = "";
  capabilityStoreSuite(
    "postgres",
    () => new PostgresCapabilityStore(postgresUrl(), { schema: (schema = schemas.next()) }),
    () => new PostgresCapabilityStore(postgresUrl(), { schema }),
  );
}
