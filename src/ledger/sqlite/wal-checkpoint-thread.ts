/**
 * @module src/ledger/sqlite/wal-checkpoint-thread
 * The thread of WalCheckpointer: its own connection to the ledger file, and
 * a PASSIVE checkpoint every `intervalMs` (see sqlite/wal-checkpointer.ts).
 */
import { workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, intervalMs, busyTimeoutMs } = workerData as { path: string; intervalMs: number; busyTimeoutMs: number };
const db = new Database(path, { timeout: busyTimeoutMs });
setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or gone this time: the next tick tries again, and the store's
    // own autocheckpoint is the safety net.
  }
}, intervalMs);
