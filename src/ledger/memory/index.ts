/**
 * @module src/ledger/memory
 * The in-memory backend of the ledger: the same contract as the others
 * (store.case.ts), kept for as long as the host lives.
 */
export { MemoryLedgerStore } from "./store.js";
