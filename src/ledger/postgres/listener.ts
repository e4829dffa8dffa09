/**
 * @module src/ledger/postgres/listener
 * ChangeListener: one connection of its own that LISTENs on the ledger's
 * channel, so a host learns within milliseconds that another host (or the
 * CLI) changed a source's state, without reading the database on every
 * call. Every change of state is NOTIFYed in the transaction that makes it,
 * with its writer's id; PostgreSQL delivers it at COMMIT, to every listener.
 *
 * While this connection is down, nothing can be learnt this way: `live` is
 * false and the store's readers must read the database instead. It
 * reconnects every `retryMs`, and reports a reconnect as a change (what was
 * NOTIFYed meanwhile is lost). A connection that died without a word (a
 * network cut: no FIN, no error) is found by a heartbeat every
 * HEARTBEAT_MS that must answer within `timeoutMs`, so a missed NOTIFY
 * goes unseen at most that long. The store owns it and closes it.
 */
import pg from "pg";

/** How often the listening connection proves it is alive. */
export const HEARTBEAT_MS = 5_000;

export class ChangeListener {
  readonly #config: pg.ClientConfig;
  readonly #channel: string;
  readonly #ownId: string;
  readonly #onChange: () => void;
  readonly #retryMs: number;
  readonly #timeoutMs: number;
  readonly #heartbeat: NodeJS.Timeout;
  #client: pg.Client | undefined;
  #live = false;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(config: pg.ClientConfig, channel: string, ownId: string, onChange: () => void, options: { retryMs: number; timeoutMs: number }) {
    this.#config = config;
    this.#channel = channel;
    this.#ownId = ownId;
    this.#onChange = onChange;
    this.#retryMs = options.retryMs;
    this.#timeoutMs = options.timeoutMs;
    this.#heartbeat = setInterval(() => void this.#beat(), HEARTBEAT_MS);
    this.#heartbeat.unref();
    void this.#connect();
  }

  async #beat(): Promise<void> {
    const client = this.#client;
    if (client === undefined || !this.#live) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the listening connection did not answer")), this.#timeoutMs);
    });
    try {
      await Promise.race([client.query("SELECT 1"), late]);
    } catch {
      this.#lost(client);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether a change made elsewhere now would reach this listener. */
  get live(): boolean {
    return this.#live;
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client(this.#config);
    this.#client = client;
    client.on("notification", (message) => {
      if (message.payload !== this.#ownId) this.#onChange();
    });
    client.on("error", () => this.#lost(client));
    client.on("end", () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
    } catch {
      this.#lost(client);
      return;
    }
    if (this.#client !== client || this.#closed) return;
    this.#live = true;
    // Whatever was NOTIFYed before this LISTEN is unknown here: count it as a change.
    this.#onChange();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#live = false;
    client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#onChange();
    this.#retry = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    clearTimeout(this.#retry);
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}
