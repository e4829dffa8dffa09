/**
 * @module src/capabilities/capability-store.test
 * The shared capability-store suite against memory and a real SQLite file.
 */
import { after } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { capabilityStoreSuite } from "./capability-store.case.js";
import { MemoryCapabilityStore } from "./memory-capability-store.js";
import { SqliteCapabilityStore } from "./sqlite-capability-store.js";

const dir = mkdtempSync(join(tmpdir(), "corral-capstore-"));
after(() => rmSync(dir, { recursive: true, force: true }));

capabilityStoreSuite("memory", () => new MemoryCapabilityStore());
let n = 0;
capabilityStoreSuite(
  "sqlite",
  () => new SqliteCapabilityStore(join(dir, `ledger-${++n}.db`)),
  () => new SqliteCapabilityStore(join(dir, `ledger-${n}.db`)),
);
