/**
 * @module src/adapters/mcp/http-sessions
 * The Streamable HTTP sessions one server holds, and when each ends. A
 * session is busy while any HTTP request of it is open (a POST being
 * answered, the client's GET notification stream) and idle from when its
 * last one closed. It ends:
 *
 * - expired: idle for `idleTimeoutMs` (clients such as the MCP Inspector and
 *   the SDK's own client exit without DELETE, so without this every run
 *   would keep a session for ever);
 * - evicted: a new client initializes while `maxSessions` are open, and it
 *   is the one idle longest (only when every session is busy is the new
 *   client refused);
 * - deleted: the client's DELETE, or the server's close().
 *
 * Whichever way, its running calls are cancelled and recorded as
 * `cancelled` before the session is gone (McpSession.close).
 */
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { ServerResponse } from "node:http";
import type { McpSession } from "./session.js";

export type EndReason = "expired" | "evicted" | "deleted";

type Live = {
  id: string;
  session: McpSession;
  transport: StreamableHTTPServerTransport;
  /** HTTP requests of this session open now. */
  open: number;
  idleSince: number;
  expiry: NodeJS.Timeout | undefined;
};

const WHY: Record<EndReason, string> = {
  expired: "the MCP session expired (idle too long)",
  evicted: "the MCP session was closed to make room for a new client (it was the one idle longest)",
  deleted: "the MCP session was ended",
};

export class HttpSessions {
  readonly #live = new Map<string, Live>();
  readonly #idleTimeoutMs: number;

  constructor(idleTimeoutMs: number) {
    this.#idleTimeoutMs = idleTimeoutMs;
  }

  get size(): number {
    return this.#live.size;
  }

  get(id: string): Live | undefined {
    return this.#live.get(id);
  }

  /** `res`: the initialize request's response, the session's first open request. */
  add(id: string, session: McpSession, transport: StreamableHTTPServerTransport, res: ServerResponse): void {
    const live: Live = { id, session, transport, open: 0, idleSince: Date.now(), expiry: undefined };
    this.#live.set(id, live);
    this.track(live, res);
  }

  /** A request of the session is open until `res` closes; the session is idle only when none is. */
  track(live: Live, res: ServerResponse): void {
    live.open += 1;
    clearTimeout(live.expiry);
    live.expiry = undefined;
    res.once("close", () => {
      live.open -= 1;
      if (live.open > 0) return;
      live.idleSince = Date.now();
      if (this.#live.get(live.id) !== live) return;
      live.expiry = setTimeout(() => void this.end(live.id, "expired"), this.#idleTimeoutMs);
      live.expiry.unref();
    });
  }

  /** Room for one more below `max`: closes the session idle longest when full; false when every one is busy. */
  async makeRoom(max: number): Promise<boolean> {
    if (this.#live.size < max) return true;
    let oldest: [string, Live] | undefined;
    for (const entry of this.#live) {
      if (entry[1].open === 0 && (oldest === undefined || entry[1].idleSince < oldest[1].idleSince)) oldest = entry;
    }
    if (oldest === undefined) return false;
    await this.end(oldest[0], "evicted");
    return this.#live.size < max;
  }

  async end(id: string, reason: EndReason): Promise<void> {
    const live = this.#live.get(id);
    if (live === undefined) return;
    this.#live.delete(id);
    clearTimeout(live.expiry);
    await live.session.close(WHY[reason]);
  }

  async endAll(): Promise<void> {
    await Promise.all([...this.#live.keys()].map((id) => this.end(id, "deleted")));
  }
}
