/**
 * @module src/host/quarantine-view
 * The host's view of which sources are quarantined. A call's check reads the
 * ledger's store only when it must: when another process (the CLI) has
 * committed since the last read (the store's change counter), when the
 * source is new to this view, or when a quarantine it knows has run out (the
 * ledger then records the expiry). Otherwise what this host's own records and
 * actions told it is the truth, and the check costs no read (and lets the
 * store batch the commits of calls running together); the counter itself is
 * read at most once a millisecond. With a PostgreSQL ledger the counter
 * moves when another host's NOTIFY arrives, and when the ledger's server
 * cannot be reached the view answers from what it knew (see check()).
 * `declarations()` must
 * answer synchronously and reads the same states; a refresh every few seconds
 * keeps them fresh when no call comes.
 *
 * A source that a read finds quarantined where the view had it active, or
 * the other way round, was changed by someone else (another host, the CLI,
 * the dashboard): `onChangeElsewhere` is told, so that what the host declares
 * can be announced again (MCP's tools/list_changed). This host's own changes
 * come through learn() and are not told here: the Ledger announces them.
 */
import { CorralError } from "../errors.js";
import type { Ledger, SourceState } from "../ledger/index.js";
import { CHANGE_COUNTER_MAX_AGE_MS, QUARANTINE_REFRESH_MS } from "../../sandbox/shared/tuning.js";

export class QuarantineView {
  readonly #ledger: Ledger;
  readonly #states = new Map<string, SourceState>();
  /** Every state learnt since the store last changed elsewhere, active ones included. */
  readonly #known = new Map<string, SourceState>();
  #counter: number | undefined;
  /** The change counter as last read, and when (see #changesElsewhere). */
  #counterRead: number | undefined;
  #counterReadAt = Number.NEGATIVE_INFINITY;
  /** The change counter when the last refresh read every state. */
  #refreshedAt: number | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #now: () => number;
  readonly #onChangeElsewhere: (state: SourceState) => void;

  constructor(ledger: Ledger, options: { now?: () => number; onChangeElsewhere?: (state: SourceState) => void } = {}) {
    this.#ledger = ledger;
    this.#now = options.now ?? Date.now;
    this.#onChangeElsewhere = options.onChangeElsewhere ?? (() => undefined);
    this.#timer = setInterval(() => void this.refresh().catch(() => undefined), QUARANTINE_REFRESH_MS);
    this.#timer.unref();
  }

  /**
   * The store's change counter, read at most once a millisecond: a read is a
   * statement that looks at the WAL index (7-25 µs here), and what another
   * process commits counts a millisecond later at worst.
   */
  #changesElsewhere(): number | undefined {
    const now = performance.now();
    if (now - this.#counterReadAt >= CHANGE_COUNTER_MAX_AGE_MS) {
      this.#counterRead = this.#ledger.changesElsewhere();
      this.#counterReadAt = now;
    }
    return this.#counterRead;
  }

  /**
   * The source's state as this view knows it, when nothing changed elsewhere
   * since it learnt it; undefined when it must be read (check). A warm call
   * asks this first, so its checks wait on nothing.
   */
  known(source: string): SourceState | undefined {
    const counter = this.#changesElsewhere();
    if (counter === undefined || counter !== this.#counter) {
      this.#known.clear();
      this.#counter = counter;
      return undefined;
    }
    const known = this.#known.get(source);
    return known !== undefined && (known.state === "active" || known.until === null || known.until > this.#now()) ? known : undefined;
  }

  async check(source: string): Promise<SourceState> {
    const known = this.known(source);
    if (known !== undefined) return known;
    let state: SourceState;
    try {
      state = await this.#ledger.check(source);
    } catch (error) {
      if (!(error instanceof CorralError && error.data.outage === true)) throw error;
      // The ledger's server is unreachable (the store reports it): the quarantines this host
      // knew of still refuse, and any other source is answered as active until the server is back.
      const known = this.#states.get(source);
      return known !== undefined && this.isQuarantined(source) ? known : { source, state: "active", since: null };
    }
    const before = this.isQuarantined(source);
    this.learn(state);
    if (this.isQuarantined(source) !== before) this.#onChangeElsewhere(state);
    return state;
  }

  /** A state this host's own write answered (its call's record, its quarantine or release). */
  learn(state: SourceState): void {
    this.#known.set(state.source, state);
    if (state.state === "quarantined") this.#states.set(state.source, state);
    else this.#states.delete(state.source);
  }

  isQuarantined(source: string): boolean {
    const state = this.#states.get(source);
    return state !== undefined && state.state === "quarantined" && (state.until === null || state.until > this.#now());
  }

  /** Sources quarantined now, as this view knows them (for the telemetry gauge). */
  quarantinedCount(): number {
    let count = 0;
    for (const source of this.#states.keys()) if (this.isQuarantined(source)) count++;
    return count;
  }

  /**
   * Reads every source's state again, unless the store tells it nothing
   * changed elsewhere since the last refresh: this host's own changes it has
   * learnt already, and an end of quarantine isQuarantined() sees by itself.
   * (With PostgreSQL, each host would otherwise read the whole ledger every
   * few seconds.)
   */
  async refresh(): Promise<void> {
    if (!this.#ledger.alive) return;
    const counter = this.#ledger.changesElsewhere();
    if (counter !== undefined && counter === this.#refreshedAt) return;
    const rows = await this.#ledger.summary();
    const before = new Set([...this.#states.keys()].filter((source) => this.isQuarantined(source)));
    this.#states.clear();
    this.#known.clear();
    this.#counter = undefined;
    this.#refreshedAt = counter;
    for (const row of rows) this.learn(row.state);
    for (const row of rows) {
      const source = row.state.source;
      if (this.isQuarantined(source) !== before.delete(source)) this.#onChangeElsewhere(row.state);
    }
    // Quarantined before, and no longer in the ledger at all (a ledger replaced under the host): active now.
    for (const source of before) this.#onChangeElsewhere({ source, state: "active", since: null });
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
