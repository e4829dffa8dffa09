/**
 * @module src/adapters/mcp/oauth-options
 * The `oauth` option of the MCP server's listen() and of corral.json's
 * `mcp` section: a schema only (oauth.ts does the work, with jose), so a
 * config is read without loading either.
 */
import { z } from "zod";

const isLoopbackUrl = (url: URL) => url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]";
export const HttpsUrl = z.string().url().refine((text) => {
  const url = new URL(text);
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackUrl(url));
}, "an https URL (http only for 127.0.0.1, localhost or [::1])");

export const OAUTH_DEFAULT_SCOPES = { tools: "mcp:tools", createTool: "mcp:create_tool", runCode: "mcp:run_code" } as const;

export const OAuthOptions = z.strictObject({
  /** The authorization server that issues the tokens (its `iss`). */
  issuer: HttpsUrl,
  /** Where its keys are. @default the issuer's metadata's `jwks_uri` (/.well-known/oauth-authorization-server, else openid-configuration) */
  jwksUrl: HttpsUrl.optional(),
  /** This server's canonical URL, what tokens are issued for. @default the server's own URL (`url`) */
  resource: z.string().url().optional(),
  /** The `aud` a token must name. @default the resource */
  audience: z.string().min(1).optional(),
  /** Scope names: `tools` to use the server at all, `createTool` for create_tool, `runCode` for run_code. @default mcp:tools, mcp:create_tool, mcp:run_code */
  scopes: z.strictObject({ tools: z.string().min(1).optional(), createTool: z.string().min(1).optional(), runCode: z.string().min(1).optional() }).optional(),
});
export type OAuthOptions = z.input<typeof OAuthOptions>;
