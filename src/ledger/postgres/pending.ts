/**
 * @module src/ledger/postgres/pending
 * PendingRecords: the records a PostgreSQL store has not sent yet, and when
 * they go. Records that arrive in one turn of the event loop go together at
 * setImmediate; records nobody waits for (`behind`) wait up to
 * COMMIT_BEHIND_MS for others to share their transaction, as in SQLite; a
 * record someone waits for takes them along at once.
 */
import type { Pending } from "./outage.js";
import { COMMIT_BEHIND_MS, POSTGRES_MAX_BATCH_RECORDS } from "../../../sandbox/shared/tuning.js";

export class PendingRecords {
  readonly #send: (batch: Pending[]) => void;
  #records: Pending[] = [];
  #soon = false;
  #behind: NodeJS.Timeout | undefined;

  /** `send` gets each batch, in order. */
  constructor(send: (batch: Pending[]) => void) {
    this.#send = send;
  }

  get size(): number {
    return this.#records.length;
  }

  push(item: Pending): void {
    this.#records.push(item);
    if (item.options.behind === true && this.#records.length < POSTGRES_MAX_BATCH_RECORDS) {
      this.#behind ??= setTimeout(() => this.flush(), COMMIT_BEHIND_MS);
    } else if (!this.#soon) {
      this.#soon = true;
      setImmediate(() => this.flush());
    }
  }

  /** Sends what waits now (another operation must come after it). */
  flush(): void {
    this.#soon = false;
    clearTimeout(this.#behind);
    this.#behind = undefined;
    const batch = this.#records;
    if (batch.length === 0) return;
    this.#records = [];
    this.#send(batch);
  }
}
