/**
 * @module src/adapters/mcp/http-guard
 * The checks in front of the Streamable HTTP transport, which itself checks
 * no token, Host or Origin. A server is reachable from any web page the user
 * opens (DNS rebinding: a page on evil.example re-resolved to the server's
 * address), and a browser always sends the page's own name as Host, so the
 * Host header is what tells a rebinding apart (the MCP specification's
 * security guidance). A request passes only when:
 *
 * 1. its Host names this server (`hostAllowed`):
 *    - a name the operator allowed (`allowedHosts`: `name` on any port, as a
 *      proxy in front may use its own, or `name:port`), or
 *    - on this server's port: the address the connection arrived on (the
 *      client addressed this very server by its address, so its page, if
 *      any, is of this server's own origin), or `localhost` or a loopback
 *      address when the connection arrived on a loopback address. A server
 *      bound to a LAN address thus never answers to `localhost`, and one
 *      bound to 0.0.0.0 answers to it only from this machine;
 * 2. its Origin, when a browser sent one, is in `allowedOrigins` or its host
 *    would pass as Host by the same rule;
 * 3. it carries the bearer token in `Authorization` (or, with OAuth, a token
 *    the issuer signed for this server: oauth.ts). A token anywhere else
 *    is no token.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import ipaddr from "ipaddr.js";

/** A host the operator allowed; `port` null: any port. */
export type AllowedHost = { name: string; port: number | null };

export type GuardSettings = {
  token: string;
  allowedHosts: readonly AllowedHost[];
  /** Exact origins (scheme://host:port) a browser may send besides this server's own. */
  origins: ReadonlySet<string>;
  port: number;
};

export type Refusal = { status: 401 | 403; message: string; headers?: Record<string, string> };

type HostPort = { name: string; port: number | null };

/** An IP address in one spelling (IPv4-mapped IPv6 as IPv4, IPv6 without brackets, zeros compressed); a name lower-cased. */
function canonicalName(name: string): string {
  const bare = name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
  return ipaddr.isValid(bare) ? ipaddr.process(bare).toString() : bare.toLowerCase().replace(/\.$/, "");
}

/**
 * `name`, `name:port`, `[v6]:port` (a Host header, an origin's host, an
 * allowedHosts entry) → its parts; null when it is not a host at all.
 * `defaultPort`: the port a missing one means (HTTP's 80 for a Host header;
 * null for an allowedHosts entry, where it means any).
 */
export function parseHost(text: string, defaultPort: number | null): HostPort | null {
  if (text.length === 0 || text.length > 300 || /[\s/?#@\\]/.test(text)) return null;
  // A bare IPv6 address (an allowedHosts entry written without brackets): all colons, no port.
  if (ipaddr.IPv6.isValid(text)) return { name: canonicalName(text), port: defaultPort };
  let url: URL;
  try {
    url = new URL(`http://${text}`);
  } catch {
    return null;
  }
  // The URL parser drops an explicit :80; the text still says whether a port was written.
  const written = /:(\d+)$/.exec(text);
  const port = written !== null ? Number(written[1]) : defaultPort;
  if (port !== null && (port < 1 || port > 65_535)) return null;
  return { name: canonicalName(url.hostname), port };
}

/** Whether a bind address (`127.0.0.1`, `::1`, `localhost`) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return isLoopback(canonicalName(host));
}

function isLoopback(name: string): boolean {
  return name === "localhost" || (ipaddr.isValid(name) && ipaddr.process(name).range() === "loopback");
}

/** Whether `host` names this server, for a connection that arrived on `localAddress`. */
export function hostAllowed(host: HostPort, localAddress: string | undefined, settings: Pick<GuardSettings, "allowedHosts" | "port">): boolean {
  if (settings.allowedHosts.some((allowed) => allowed.name === host.name && (allowed.port === null || allowed.port === host.port))) return true;
  if (host.port !== settings.port || localAddress === undefined) return false;
  const local = canonicalName(localAddress);
  if (host.name === local) return true;
  return isLoopback(local) && isLoopback(host.name);
}

function originAllowed(origin: string, localAddress: string | undefined, settings: Omit<GuardSettings, "token">): boolean {
  if (settings.origins.has(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return hostAllowed({ name: canonicalName(url.hostname), port }, localAddress, settings);
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Undefined when the request's Host and Origin (checks 1 and 2) let it go on. */
export function refuseHostOrOrigin(request: IncomingMessage, settings: Omit<GuardSettings, "token">): Refusal | undefined {
  const header = request.headers.host;
  const host = header === undefined ? null : parseHost(header, 80);
  const local = request.socket.localAddress;
  if (host === null || !hostAllowed(host, local, settings)) {
    return {
      status: 403,
      message: `the Host header ${JSON.stringify((header ?? "").slice(0, 200))} does not name this server (DNS rebinding protection); allow a name with allowedHosts (corral mcp --allowed-host)`,
    };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !originAllowed(origin, local, settings)) {
    return { status: 403, message: `the origin ${JSON.stringify(origin.slice(0, 200))} is not allowed; allow it with allowedOrigins` };
  }
  return undefined;
}

/** Undefined when the request may go on: its Host, its Origin, and the static token (check 3). */
export function refuse(request: IncomingMessage, settings: GuardSettings): Refusal | undefined {
  const hostOrOrigin = refuseHostOrOrigin(request, settings);
  if (hostOrOrigin !== undefined) return hostOrOrigin;
  const authorization = request.headers.authorization ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (match === null || !sameToken(match[1] as string, settings.token)) {
    return {
      status: 401,
      message: match === null ? "a bearer token is required (Authorization: Bearer <token>)" : "the bearer token is wrong",
      headers: { "WWW-Authenticate": 'Bearer realm="corral"' },
    };
  }
  return undefined;
}
