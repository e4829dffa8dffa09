/**
 * @module src/ledger/testing/tcp-proxy
 * A TCP proxy on 127.0.0.1 in front of the test's PostgreSQL server, so a
 * test can take "the server" down and bring it back without stopping the
 * real one (other runs use it): down() cuts every open connection and stops
 * listening (a new connection is refused, as from a stopped server); up()
 * listens again on the same port; stall() drops bytes without closing
 * anything (a silent network). The bytes are passed on untouched.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;
  #stalled = false;

  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  get port(): number {
    return this.#port;
  }

  /** `url` with its host and port replaced by this proxy's. */
  rewrite(url: string): string {
    const through = new URL(url);
    through.hostname = "127.0.0.1";
    through.port = String(this.#port);
    return through.toString();
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.#target.port, this.#target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      // Bytes are dropped while stalled: a network that went silent, with no FIN and no reset.
      client.on("data", (chunk: Buffer) => void (this.#stalled || upstream.write(chunk)));
      upstream.on("data", (chunk: Buffer) => void (this.#stalled || client.write(chunk)));
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", () => resolve());
    });
    this.#port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Drops every byte from now on (true) or passes them again (false), leaving the connections open. */
  stall(stalled: boolean): void {
    this.#stalled = stalled;
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The host and port a postgres:// URL names. */
export function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || "127.0.0.1", port: Number(parsed.port || 5432) };
}
