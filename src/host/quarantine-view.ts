/**
 * @module src/host/quarantine-view
 * The host's view of which sources are quarantined. A call asks the ledger
 * (so a release or quarantine made by another process, such as the CLI,
 * counts at once); `declarations()` must answer synchronously, so it reads
 * the states learnt from those answers, from the ledger's events, and from a
 * refresh every few seconds.
 */
import type { Ledger, SourceState } from "../ledger/index.js";

const REFRESH_MS = 5_000;

export class QuarantineView {
  readonly #ledger: Ledger;
  readonly #states = new Map<string, SourceState>();
  readonly #timer: NodeJS.Timeout;
  readonly #now: () => number;

  constructor(ledger: Ledger, now: () => number = Date.now) {
    this.#ledger = ledger;
    this.#now = now;
    this.#timer = setInterval(() => void this.refresh().catch(() => undefined), REFRESH_MS);
    this.#timer.unref();
  }

  async check(source: string): Promise<SourceState> {
    const state = await this.#ledger.check(source);
    this.learn(state);
    return state;
  }

  learn(state: SourceState): void {
    if (state.state === "quarantined") this.#states.set(state.source, state);
    else this.#states.delete(state.source);
  }

  isQuarantined(source: string): boolean {
    const state = this.#states.get(source);
    return state !== undefined && state.state === "quarantined" && (state.until === null || state.until > this.#now());
  }

  async refresh(): Promise<void> {
    if (!this.#ledger.alive) return;
    const rows = await this.#ledger.summary();
    this.#states.clear();
    for (const row of rows) this.learn(row.state);
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
