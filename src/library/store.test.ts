/**
 * @module src/library/store.test
 * The shared library-store suite against memory, a real SQLite file and the
 * real PostgreSQL (each suite's test in a fresh schema).
 */
import { after, it } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libraryStoreSuite } from "./store.case.js";
import { MemoryLibraryStore } from "./memory-store.js";
import { SqliteLibraryStore } from "./sqlite-store.js";
import { PostgresLibraryStore } from "./postgres-store.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../ledger/testing/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "corral-library-"));
after(() => rmSync(dir, { recursive: true, force: true }));

libraryStoreSuite("memory", () => new MemoryLibraryStore());
let n = 0;
libraryStoreSuite(
  "sqlite",
  () => new SqliteLibraryStore(join(dir, `ledger-${++n}.db`)),
  () => new SqliteLibraryStore(join(dir, `ledger-${n}.db`)),
);

if (SKIP_POSTGRES !== false) {
  it("postgres library store", { skip: SKIP_POSTGRES }, () => undefined);
} else {
  const schemas = testSchemas("library");
  after(() => schemas.dropAll());
  let schema = "";
  libraryStoreSuite(
    "postgres",
    () => new PostgresLibraryStore(postgresUrl(), { schema: (schema = schemas.next()) }),
    () => new PostgresLibraryStore(postgresUrl(), { schema }),
  );
}
