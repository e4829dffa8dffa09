/**
 * @module src/capabilities/host-capabilities
 * What a host owns for capabilities: the broker, and the capability store,
 * opened on first use (beside the ledger: its SQLite file or PostgreSQL
 * schema, or memory) by the broker or by an audit (readUses), and closed
 * with the host.
 */
import type { Logger } from "pino";
import type { BeforeToolCall, ResolvedEffectPolicy } from "../gate/index.js";
import type { LedgerStore } from "../ledger/index.js";
import { LEDGER_DEFAULTS } from "../ledger/index.js";
import { POSTGRES_URL } from "../ledger/postgres/index.js";
import { CapabilityBroker, type Notice } from "./broker.js";
import { LATEST_USES_SHOWN, type CapabilityStore, type CapabilityUses } from "./capability-store.js";
import { MemoryCapabilityStore } from "./memory-capability-store.js";
import { createGrantResolver, type CapabilitiesOptions } from "./options.js";
import { PostgresCapabilityStore } from "./postgres-capability-store.js";
import { SqliteCapabilityStore } from "./sqlite-capability-store.js";

export type HostCapabilities = {
  broker: CapabilityBroker;
  /** A source's capability record (host.auditSource): its counters and its latest LATEST_USES_SHOWN uses, from the store the broker writes to. */
  readUses(source: string): Promise<CapabilityUses>;
  close(): Promise<void>;
};

/**
 * The store beside a ledger store option: tables in the same SQLite file or
 * the same PostgreSQL schema, else memory (a memory ledger, or a ledger
 * store object the host cannot see into: pass `capabilities.store` then).
 */
export function capabilityStoreFor(ledgerStore: string | false | LedgerStore | undefined): CapabilityStore {
  const store = ledgerStore ?? LEDGER_DEFAULTS.store;
  if (typeof store !== "string" || store === ":memory:") return new MemoryCapabilityStore();
  return POSTGRES_URL.test(store) ? new PostgresCapabilityStore(store) : new SqliteCapabilityStore(store);
}

export function createHostCapabilities(options: {
  capabilities: CapabilitiesOptions | undefined;
  ledgerStore: string | false | LedgerStore | undefined;
  effectPolicy: ResolvedEffectPolicy;
  gate: BeforeToolCall;
  logger: Logger;
  announce?: (notice: Notice) => void;
}): HostCapabilities {
  let store: CapabilityStore | undefined = options.capabilities?.store;
  const owned = store === undefined;
  const open = (): CapabilityStore => (store ??= capabilityStoreFor(options.ledgerStore));
  const broker = new CapabilityBroker({
    grants: createGrantResolver(options.capabilities),
    store: open,
    effectPolicy: options.effectPolicy,
    gate: options.gate,
    logger: options.logger,
    ...(options.announce !== undefined ? { announce: options.announce } : {}),
  });
  return {
    broker,
    readUses: (source) => open().readUses(source, LATEST_USES_SHOWN),
    async close() {
      if (owned) await store?.close();
    },
  };
}
