/**
 * @module src/adapters/mcp/http-guard
 * The checks in front of the Streamable HTTP transport, which itself checks
 * no token, Host or Origin. A local server is reachable from any web page
 * the user opens (DNS rebinding: a page on evil.example re-resolved to
 * 127.0.0.1), so a request passes only when its Host names this server by a
 * loopback name or the bound address, its Origin (when a browser sent one)
 * is a loopback origin or one the operator allowed, and it carries the
 * bearer token in `Authorization`. A token anywhere else is no token.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export type GuardSettings = {
  token: string;
  /** host:port forms the Host header may take. */
  hosts: ReadonlySet<string>;
  /** Exact origins (scheme://host:port) a browser may send besides loopback ones. */
  origins: ReadonlySet<string>;
  port: number;
};

export type Refusal = { status: 401 | 403; message: string; headers?: Record<string, string> };

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

export function allowedHosts(boundHost: string, port: number): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, boundHost.includes(":") && !boundHost.startsWith("[") ? `[${boundHost}]` : boundHost]);
  return new Set([...names].map((name) => `${name}:${port}`));
}

function loopbackOrigin(origin: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_NAMES.includes(url.hostname) && Number(url.port || (url.protocol === "https:" ? 443 : 80)) === port;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Undefined when the request may go on. */
export function refuse(request: IncomingMessage, settings: GuardSettings): Refusal | undefined {
  const host = request.headers.host;
  if (host === undefined || !settings.hosts.has(host.toLowerCase())) {
    return { status: 403, message: "the Host header does not name this server (DNS rebinding protection)" };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !settings.origins.has(origin) && !loopbackOrigin(origin, settings.port)) {
    return { status: 403, message: `the origin ${JSON.stringify(origin.slice(0, 200))} is not allowed` };
  }
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
