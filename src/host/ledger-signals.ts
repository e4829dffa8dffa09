/**
 * @module src/host/ledger-signals
 * How what the ledger says reaches the host's log and its listeners: a
 * source's change of state (quarantine, release, expiry) and the ledger
 * store's outages and returns. The host passes these to the Ledger it
 * builds; nothing here changes the ledger.
 */
import type { Logger } from "pino";
import type { EventHub } from "../events.js";
import type { LedgerEvent, StoreStatus } from "../ledger/index.js";

/** A source's change of state, in the log and as a `quarantine` or `release` event. */
export function announceStateChange(logger: Logger, events: EventHub, event: LedgerEvent): void {
  logger.info({ event: "state", ...event }, `source ${event.kind}`);
  if (event.kind === "release" || event.kind === "expire") {
    events.emit({ type: "release", source: event.source, actor: event.actor, at: event.at });
  } else {
    events.emit({ type: "quarantine", source: event.source, reason: event.reason, since: event.at, until: event.until, at: event.at });
  }
}

/** A ledger server's outage and return, in the log and as a `ledger_store` event; a record refused or lost is an error. */
export function announceStoreStatus(logger: Logger, events: EventHub, status: StoreStatus): void {
  const { type, ...detail } = status;
  if (type === "restored") logger.info({ event: "ledger_store", status: type, ...detail }, "the ledger's database is back; buffered records written");
  else if (type === "unavailable") logger.warn({ event: "ledger_store", status: type, ...detail }, "the ledger's database is unreachable; records wait in memory");
  else logger.error({ event: "ledger_store", status: type, ...detail }, type === "record_refused" ? "a call's record was not kept: the ledger's buffer is full" : "buffered ledger records were lost at close");
  events.emit({ type: "ledger_store", status, at: Date.now() });
}
