/**
 * @module src/cli/commands/mcp-env
 * `corral mcp`'s settings from its flags, the environment and corral.json's
 * `mcp` section (flag > environment > file > default), and the environment
 * variable the token comes from. Apart from mcp.ts so that the CLI's other
 * commands never load the MCP SDK.
 */
import type { CliContext } from "../context.js";
import type { McpOptions } from "./mcp.js";

export const MCP_TOKEN_ENV = "CORRAL_MCP_TOKEN";

/** Worker processes `corral mcp` starts when neither --workers nor the config's `workers` says. */
export const MCP_DEFAULT_WORKERS = 2;

export type McpFlags = { http?: boolean; stdio?: boolean; port?: number; host?: string; token?: string | false; allowedHost?: string[]; allowedOrigin?: string[]; oauthIssuer?: string; oauthAudience?: string; workers?: number };

export function mcpOptionsOf(flags: McpFlags, context: CliContext): McpOptions {
  const file = context.config?.config.mcp ?? {};
  // --no-token is false: it wins over the environment's token, as a flag does.
  const token = flags.token ?? (process.env[MCP_TOKEN_ENV] || undefined);
  const host = flags.host ?? file.host;
  const port = flags.port ?? file.port;
  const allowedHosts = flags.allowedHost ?? file.allowedHosts;
  const options: McpOptions = {
    http: flags.stdio === true ? false : flags.http === true || file.transport === "http",
    workers: Math.floor(flags.workers ?? context.hostOptions.workers ?? MCP_DEFAULT_WORKERS),
  };
  if (port !== undefined) options.port = port;
  if (host !== undefined) options.host = host;
  if (allowedHosts !== undefined) options.allowedHosts = allowedHosts;
  const allowedOrigins = flags.allowedOrigin ?? file.allowedOrigins;
  if (allowedOrigins !== undefined) options.allowedOrigins = allowedOrigins;
  if (token !== undefined) options.token = token;
  const issuer = flags.oauthIssuer ?? file.oauth?.issuer;
  if (issuer !== undefined) {
    // The flags name the issuer and audience; the file may say more (jwksUrl, resource, scopes).
    const fromFile = flags.oauthIssuer === undefined || flags.oauthIssuer === file.oauth?.issuer ? file.oauth : undefined;
    const audience = flags.oauthAudience ?? fromFile?.audience;
    options.oauth = { ...fromFile, issuer, ...(audience !== undefined ? { audience } : {}) };
  }
  return options;
}
