/**
 * @module src/dashboard/open-ledger
 * The two things the dashboard holds on a ledger, opened for its kind: a
 * Ledger (the page's quarantines and releases, the CLI's writes) and a
 * DashboardReader (every page's reads, on a read-only connection of its
 * own). Either way the ledger must exist already, and nothing is written to
 * something that is not one:
 *
 * - a SQLite file is checked read-only first (NotALedgerError), then the
 *   Ledger migrates an older one, then the reader opens it;
 * - a `postgres://` URL: the Ledger's store opens with createSchema false (an
 *   empty schema is refused, a foreign one too) and migrates an older one,
 *   then the reader checks the schema's mark and version.
 */
import { checkLedgerFile, Ledger, PostgresDashboardReader, PostgresLedgerStore, SqliteDashboardReader, type DashboardReader } from "../ledger/index.js";
import { POSTGRES_URL } from "../ledger/postgres/index.js";
import { PostgresLibraryStore, SqliteLibraryStore, type LibraryStore } from "../library/index.js";

/** `library`: the agents' tools beside the ledger (an agent's page lists them and their versions). */
export type OpenedLedger = { ledger: Ledger; reader: DashboardReader; library: LibraryStore };

export async function openDashboardLedger(where: string): Promise<OpenedLedger> {
  if (POSTGRES_URL.test(where)) {
    const store = new PostgresLedgerStore({ url: where, createSchema: false });
    const ledger = new Ledger({ store });
    return withReader(ledger, async () => {
      await store.ready();
      return PostgresDashboardReader.open({ url: where });
    }, () => new PostgresLibraryStore(where, { createSchema: false }));
  }
  checkLedgerFile(where);
  // The Ledger first: it migrates an older ledger to the schema the reader needs.
  return withReader(new Ledger({ store: where }), async () => new SqliteDashboardReader(where), () => new SqliteLibraryStore(where));
}

/** The reader opened after `ledger`, or the ledger closed again if it cannot be. */
async function withReader(ledger: Ledger, open: () => Promise<DashboardReader>, openLibrary: () => LibraryStore): Promise<OpenedLedger> {
  let reader: DashboardReader | undefined;
  try {
    reader = await open();
    return { ledger, reader, library: openLibrary() };
  } catch (error) {
    await reader?.close();
    await ledger.close();
    throw error;
  }
}
