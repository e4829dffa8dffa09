/**
 * @module src/adapters/mcp/oauth
 * The MCP server as an OAuth 2.1 resource server (the MCP authorization
 * specification, 2025-06-18 and 2025-11-25), beside the static token:
 *
 * ```
 * GET /.well-known/oauth-protected-resource[/mcp] ─▶ RFC 9728 metadata { resource, authorization_servers, scopes_supported, … }
 * request ─▶ Authorization: Bearer <JWT>
 *   ─▶ jose: signature by a key of the issuer's JWKS (asymmetric algorithms only), exp/nbf (30 s leeway), iss, aud = this resource
 *        no token ─▶ 401, WWW-Authenticate: Bearer resource_metadata="…"
 *        bad token ─▶ 401, … error="invalid_token", error_description
 *        the issuer's keys unreachable ─▶ 503 (the server's trouble, not the client's)
 *   ─▶ scopes: `tools` for any request; create_tool and run_code each their own ─▶ 403 insufficient_scope, scope="…"
 *   ─▶ caller: the token's `sub` (oauth:<sub>), the session bound to it
 * ```
 *
 * The JOSE work is jose's (createRemoteJWKSet caches the key set and
 * refetches it for a key id it does not know, at most every 30 s).
 */
import { createHash } from "node:crypto";
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from "jose";
import type { z } from "zod";
import { CALLER_ID_PATTERN } from "../../registry/caller.js";
import { HttpsUrl, OAUTH_DEFAULT_SCOPES, type OAuthOptions } from "./oauth-options.js";

export { OAuthOptions, OAUTH_DEFAULT_SCOPES } from "./oauth-options.js";

/** Asymmetric algorithms only: a JWKS holds public keys, and an HMAC "signed" with one would be forged by anyone. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

export type OAuthSettings = { issuer: string; jwksUrl: string | undefined; resource: string | undefined; audience: string | undefined; scopes: { tools: string; createTool: string; runCode: string } };

export function oauthSettings(options: z.output<typeof OAuthOptions>): OAuthSettings {
  return {
    issuer: options.issuer,
    jwksUrl: options.jwksUrl,
    resource: options.resource,
    audience: options.audience,
    scopes: { ...OAUTH_DEFAULT_SCOPES, ...options.scopes },
  };
}

/** Who a valid token speaks for, and what it may do. */
export type Grant = { caller: string; subject: string; scopes: ReadonlySet<string> };
export type AuthRefusal = { status: 401 | 403 | 503; message: string; headers: Record<string, string> };

/** A caller id for a subject: itself when it is one, else a digest of it (a sub may be an email or `auth0|123`). */
export function callerOfSubject(subject: string): string {
  const id = `oauth:${subject}`;
  return id.length <= 128 && CALLER_ID_PATTERN.test(id) ? id : `oauth:sha256-${createHash("sha256").update(subject).digest("hex").slice(0, 40)}`;
}

/** RFC 6750 §3: a quoted-string parameter, its quotes and backslashes escaped, control characters dropped. */
const quoted = (text: string) => `"${text.replace(/[\u0000-\u001f\u007f]/g, " ").replace(/["\\]/g, "\\$&").slice(0, 300)}"`;

export class OAuthResource {
  readonly #settings: OAuthSettings;
  readonly #resource: string;
  readonly #metadataUrl: string;
  #keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  /** `serverUrl`: the server's own `/mcp` URL (the resource, unless the options name one). */
  constructor(settings: OAuthSettings, serverUrl: string) {
    this.#settings = settings;
    this.#resource = settings.resource ?? serverUrl;
    const url = new URL(this.#resource);
    this.#metadataUrl = `${url.origin}/.well-known/oauth-protected-resource${url.pathname === "/" ? "" : url.pathname}`;
  }

  get scopes(): OAuthSettings["scopes"] {
    return this.#settings.scopes;
  }

  /** RFC 9728's metadata document. */
  metadata(): Record<string, unknown> {
    const { tools, createTool, runCode } = this.#settings.scopes;
    return {
      resource: this.#resource,
      authorization_servers: [this.#settings.issuer],
      scopes_supported: [...new Set([tools, createTool, runCode])],
      bearer_methods_supported: ["header"],
      resource_name: "corral",
    };
  }

  #challenge(fields: Record<string, string>): Record<string, string> {
    const params = Object.entries({ ...fields, resource_metadata: this.#metadataUrl }).map(([key, value]) => `${key}=${quoted(value)}`);
    return { "WWW-Authenticate": `Bearer ${params.join(", ")}` };
  }

  /** A request whose token lacks `scope`: 403, naming it, so a client may step up. */
  insufficientScope(scope: string, what: string): AuthRefusal {
    return { status: 403, message: `the token's scopes do not include "${scope}", which ${what} needs`, headers: this.#challenge({ error: "insufficient_scope", scope, error_description: `${what} needs the scope ${scope}` }) };
  }

  async #jwks(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.#keys !== undefined) return this.#keys;
    const url = this.#settings.jwksUrl ?? (await discoverJwks(this.#settings.issuer));
    this.#keys = createRemoteJWKSet(new URL(url), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
    return this.#keys;
  }

  /** The grant of the request's bearer token, or why it is refused. */
  async authenticate(authorization: string | undefined): Promise<Grant | AuthRefusal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (match === null) return { status: 401, message: "a bearer token from the authorization server is required (Authorization: Bearer <token>)", headers: this.#challenge({}) };
    let keys: ReturnType<typeof createRemoteJWKSet>;
    try {
      keys = await this.#jwks();
    } catch (error) {
      return unavailable(error);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1] as string, keys, { issuer: this.#settings.issuer, audience: this.#settings.audience ?? this.#resource, algorithms: ALGORITHMS, clockTolerance: 30 }));
    } catch (error) {
      if (keysUnavailable(error)) return unavailable(error);
      const description = error instanceof errors.JWTExpired ? "the token has expired" : error instanceof errors.JWTClaimValidationFailed ? `the token's ${error.claim} claim is not what this server accepts` : "the token is not one this server accepts";
      return { status: 401, message: description, headers: this.#challenge({ error: "invalid_token", error_description: description }) };
    }
    const subject = typeof payload.sub === "string" && payload.sub.length > 0 ? payload.sub : undefined;
    if (subject === undefined) return { status: 401, message: "the token names no subject (sub)", headers: this.#challenge({ error: "invalid_token", error_description: "the token names no subject (sub)" }) };
    const scopes = new Set(typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : Array.isArray(payload.scp) ? payload.scp.map(String) : []);
    if (!scopes.has(this.#settings.scopes.tools)) return this.insufficientScope(this.#settings.scopes.tools, "this server");
    return { caller: callerOfSubject(subject), subject, scopes };
  }
}

/**
 * Whether verifying failed for want of the issuer's keys (the server's
 * trouble): a timeout, a key set that is not one, a non-200 answer (jose's
 * plain JOSEError), or the network. A key the set lacks, a bad signature or
 * claim is the token's.
 */
function keysUnavailable(error: unknown): boolean {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return true;
  if (error instanceof errors.JOSEError) return error.constructor === errors.JOSEError;
  return true;
}

function unavailable(error: unknown): AuthRefusal {
  const why = error instanceof Error ? error.message.slice(0, 200) : "no answer";
  return { status: 503, message: `the authorization server's keys could not be read (${why}); try again later`, headers: { "Retry-After": "5" } };
}

/** The issuer's jwks_uri, from its RFC 8414 metadata, else its OpenID configuration. */
async function discoverJwks(issuer: string): Promise<string> {
  const base = issuer.replace(/\/$/, "");
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${base}/.well-known/openid-configuration`];
  let mismatched: string | undefined;
  for (const candidate of candidates) {
    const response = await fetch(candidate, { signal: AbortSignal.timeout(5_000), redirect: "error" }).catch(() => undefined);
    if (response === undefined || !response.ok) continue;
    const metadata = (await response.json().catch(() => ({}))) as { jwks_uri?: unknown; issuer?: unknown };
    // RFC 8414 §3.3 (and OpenID Discovery §4.3): metadata naming another issuer is not this issuer's.
    if (metadata.issuer !== issuer) {
      mismatched = `${candidate} names the issuer ${JSON.stringify(String(metadata.issuer).slice(0, 200))}, not ${issuer}`;
      continue;
    }
    if (typeof metadata.jwks_uri === "string" && HttpsUrl.safeParse(metadata.jwks_uri).success) return metadata.jwks_uri;
  }
  throw new Error(mismatched ?? `no usable jwks_uri in ${candidates.join(" or ")}`);
}
