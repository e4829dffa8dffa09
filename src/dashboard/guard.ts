/**
 * @module src/dashboard/guard
 * Who may talk to the dashboard. It listens on 127.0.0.1 only, but any web
 * page the operator opens can make the browser send requests there, and a
 * DNS-rebinding page can even make them look same-origin. So:
 *
 * - Host must name the loopback address and this port (a rebound name such
 *   as attacker.example:PORT is refused);
 * - Origin, when the browser sends one, must be this server's own, and a
 *   browser that says the request is cross-site (Sec-Fetch-Site) is refused;
 * - every API request carries the bearer token (compared in constant time);
 *   the page's own files carry no data and need none.
 *
 * Every answer gets headers that keep the page to itself: a strict CSP (no
 * inline script or style, nothing from elsewhere, no framing), nosniff, no
 * referrer.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export type Refusal = { status: number; message: string };

export class Guard {
  readonly #hosts: Set<string>;
  readonly #origins: Set<string>;
  readonly #tokenDigest: Buffer;

  constructor(port: number, token: string) {
    this.#hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.#origins = new Set([...this.#hosts].map((host) => `http://${host}`));
    this.#tokenDigest = digest(token);
  }

  /** Host, Origin and Sec-Fetch-Site: refused before anything else is read. */
  checkSite(request: IncomingMessage): Refusal | null {
    const host = request.headers.host ?? "";
    if (!this.#hosts.has(host.toLowerCase())) return { status: 421, message: `this dashboard answers only to ${[...this.#hosts].join(" or ")}, not to Host "${host}"` };
    const origin = request.headers.origin;
    if (origin !== undefined && !this.#origins.has(origin.toLowerCase())) return { status: 403, message: "requests from another origin are refused" };
    const site = request.headers["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin" && site !== "none") return { status: 403, message: "cross-site requests are refused" };
    return null;
  }

  checkToken(request: IncomingMessage): Refusal | null {
    const header = request.headers.authorization ?? "";
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (match === null) return { status: 401, message: "the token is missing: send Authorization: Bearer <token> (the page takes it from the URL corral dashboard printed)" };
    if (!timingSafeEqual(digest(match[1] ?? ""), this.#tokenDigest)) return { status: 401, message: "the token is wrong" };
    return null;
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

export function setSecurityHeaders(response: ServerResponse): void {
  response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Referrer-Policy", "no-referrer");
  response.setHeader("X-Frame-Options", "DENY");
  response.setHeader("Cross-Origin-Resource-Policy", "same-origin");
  response.setHeader("Cache-Control", "no-store");
}
