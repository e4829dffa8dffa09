/**
 * @module src/adapters/mcp
 * createMcpServer(host, options): corral's tools over the Model Context
 * Protocol, built on the official TypeScript SDK (v1,
 * `@modelcontextprotocol/sdk`; see docs/mcp.md for why). One server serves
 * any number of sessions: `connect(transport)` for stdio or any SDK
 * transport, `listen()` for Streamable HTTP on 127.0.0.1. The host stays the
 * embedding program's: close() ends the sessions and HTTP servers, not it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { CorralError, HostClosedError, describeIssues } from "../../errors.js";
import type { Host } from "../../host/index.js";
import type { Caller } from "../../registry/index.js";
import { isLoopbackHost, parseHost } from "./http-guard.js";
import { listenHttp, type McpHttpServer } from "./http-server.js";
import { McpSession, type SessionSettings } from "./session.js";
import { OAuthOptions } from "./oauth-options.js";
import { oauthSettings } from "./oauth.js";

export { McpSession } from "./session.js";
export { MCP_PATH, type McpHttpServer } from "./http-server.js";
export { hintsFor, titleOf, toMcpTool, type ToolHints } from "./tool-list.js";
export { toCallToolResult } from "./call-result.js";
export { CALLER_HEADER } from "./http-stateless.js";
export { OAuthOptions, OAUTH_DEFAULT_SCOPES } from "./oauth-options.js";

export const MCP_DEFAULTS = {
  /** The server's name in `initialize`. @default "corral" */
  name: "corral",
  /** A progress notification this often while a call runs, when the client asked for progress. @default 1000 */
  progressIntervalMs: 1_000,
  /** Effects whose policy is `ask` are refused (naming the config key) unless turned on. @default false */
  elicitApprovals: false,
  /** How long the client's user has to answer an approval question; then the call is blocked. @default 120000 (2 min) */
  approvalTimeoutMs: 120_000,
} as const;

export const MCP_HTTP_DEFAULTS = {
  /** @default "127.0.0.1" */
  host: "127.0.0.1",
  /** 0: any free port. @default 0 */
  port: 0,
  /** A larger POST body is refused with 413. @default 4 MiB */
  maxBodyBytes: 4 * 1024 * 1024,
  /** @default 64 */
  maxSessions: 64,
  /** A session with no request open for this long is closed. @default 900000 (15 min) */
  idleTimeoutMs: 15 * 60 * 1000,
  /** @default false */
  stateless: false,
} as const;

export const McpServerOptions = z.strictObject({
  /** @default "corral" */
  name: z.string().min(1).max(128).optional(),
  /** The server's version in `initialize` (the CLI passes corral's). @default "0.0.0" */
  version: z.string().min(1).max(64).optional(),
  /** Text a client may add to its model's prompt. @default none */
  instructions: z.string().max(8192).optional(),
  /** @default 1000 */
  progressIntervalMs: z.number().int().min(10).optional(),
  /**
   * Put a call whose effects the policy leaves to `ask` to the client's user
   * (MCP elicitation: the question names the tool, its source, the effect
   * and the target), run it if they accept, block it if not. Only with the
   * host's default gate (a beforeToolCall of the program's own gets the
   * asker as `context.askUser`). A client without the elicitation
   * capability is refused, naming the `effects` key to change. @default false
   */
  elicitApprovals: z.boolean().optional(),
  /** @default 120000 */
  approvalTimeoutMs: z.number().int().min(1_000).max(3_600_000).optional(),
});
export type McpServerOptions = z.input<typeof McpServerOptions>;

export const McpHttpOptions = z.strictObject({
  /** The address to bind. Anything but a loopback address exposes the tools to the network. @default "127.0.0.1" */
  host: z.string().min(1).optional(),
  /** @default 0 (any free port) */
  port: z.number().int().min(0).max(65535).optional(),
  /**
   * Required as `Authorization: Bearer <token>`. `false`: no token at all,
   * for a client that cannot send one (the conformance suite's), only on a
   * loopback address: any process of this machine may then call the tools.
   * @default a random one, read it from `.token`
   */
  token: z.union([z.string().min(16, "a token is at least 16 characters").max(512).regex(/^\S+$/, "a token has no spaces"), z.literal(false)]).optional(),
  /** @default 4 MiB */
  maxBodyBytes: z.number().int().min(1024).optional(),
  /** Sessions open at once; a new client at the cap closes the one idle longest, and is refused (503) only when all are busy. Stateless: callers whose deferred tools are remembered. @default 64 */
  maxSessions: z.number().int().min(1).optional(),
  /** A session with no HTTP request open (no call, no notification stream) for this long is closed, its state with it. @default 900000 (15 min) */
  idleTimeoutMs: z.number().int().min(100).optional(),
  /** No session ids: each POST stands alone, for a fleet behind a load balancer; the caller is named by the `Corral-Caller` header (docs/mcp.md). @default false */
  stateless: z.boolean().optional(),
  /** Browser origins allowed besides this server's own (an origin whose host would pass as Host). @default none */
  allowedOrigins: z.array(z.string().url()).optional(),
  /**
   * Names the Host header may take besides this server's own address (and
   * `localhost` on a loopback connection): `name` on any port (a proxy in
   * front may use its own), `name:port`, `[v6]` or `[v6]:port`. Needed for a
   * DNS name clients use, a proxy's name, or a port forwarded elsewhere. @default none
   */
  allowedHosts: z.array(z.string().transform((text, ctx) => {
    const parsed = parseHost(text, null);
    if (parsed === null) ctx.addIssue({ code: "custom", message: `${JSON.stringify(text.slice(0, 100))} is not a host name, an address or name:port` });
    return parsed ?? { name: "", port: null };
  })).optional(),
  /**
   * An OAuth 2.1 resource server instead of the static token: bearer JWTs of
   * `issuer`, checked against its keys, for this server's URL, with scopes
   * for using the tools, create_tool and run_code (docs/mcp.md, OAuth).
   * Not with `token`. @default none
   */
  oauth: OAuthOptions.optional(),
})
  .refine((options) => options.oauth === undefined || options.token === undefined, { message: "give either token or oauth, not both: with oauth, the issuer's tokens are the credentials", path: ["oauth"] })
  .refine((options) => options.token !== false || isLoopbackHost(options.host ?? MCP_HTTP_DEFAULTS.host), {
    message: "token: false (no token) is only for a loopback address (127.0.0.1, ::1, localhost): anyone who can reach another address could call the tools",
    path: ["token"],
  });
export type McpHttpOptions = z.input<typeof McpHttpOptions>;

export type CorralMcpServer = {
  /** Serves one session on `transport` (e.g. the SDK's StdioServerTransport). */
  connect(transport: Transport): Promise<McpSession>;
  /** Serves Streamable HTTP at `/mcp`. */
  listen(options?: McpHttpOptions): Promise<McpHttpServer>;
  readonly alive: boolean;
  /** Ends every session and HTTP server; the host stays open. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

function parse<T extends z.ZodType>(schema: T, options: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const detail = describeIssues(parsed.error.issues);
  throw new CorralError("invalid_options", `${what} options are invalid: ${detail}`, { issues: parsed.error.issues });
}

export function createMcpServer(host: Host, options: McpServerOptions = {}): CorralMcpServer {
  const o = parse(McpServerOptions, options, "createMcpServer");
  const settings: SessionSettings = {
    name: o.name ?? MCP_DEFAULTS.name,
    version: o.version ?? "0.0.0",
    progressIntervalMs: o.progressIntervalMs ?? MCP_DEFAULTS.progressIntervalMs,
    instructions: o.instructions,
    askUsers: o.elicitApprovals ?? MCP_DEFAULTS.elicitApprovals,
    approvalTimeoutMs: o.approvalTimeoutMs ?? MCP_DEFAULTS.approvalTimeoutMs,
  };
  const sessions = new Set<McpSession>();
  const servers = new Set<McpHttpServer>();
  let closed = false;
  const assertAlive = () => {
    if (closed) throw new HostClosedError("the MCP server");
  };
  const open = (caller: string | Caller): McpSession => {
    const session = new McpSession(host, caller, settings, () => sessions.delete(session));
    sessions.add(session);
    return session;
  };

  const server: CorralMcpServer = {
    async connect(transport) {
      assertAlive();
      const session = open(`mcp:${transport.sessionId ?? randomUUID()}`);
      await session.connect(transport);
      // The SDK's own handler first (it fails pending requests), then ours.
      const sdkOnClose = transport.onclose;
      transport.onclose = () => {
        sdkOnClose?.();
        void session.close();
      };
      return session;
    },
    async listen(httpOptions = {}) {
      assertAlive();
      const h = parse(McpHttpOptions, httpOptions, "listen");
      const listening = await listenHttp(
        {
          host: h.host ?? MCP_HTTP_DEFAULTS.host,
          port: h.port ?? MCP_HTTP_DEFAULTS.port,
          // With OAuth there is no static token: none is made, and `.token` is "".
          token: h.oauth !== undefined || h.token === false ? "" : (h.token ?? randomBytes(24).toString("base64url")),
          open: h.token === false,
          maxBodyBytes: h.maxBodyBytes ?? MCP_HTTP_DEFAULTS.maxBodyBytes,
          maxSessions: h.maxSessions ?? MCP_HTTP_DEFAULTS.maxSessions,
          idleTimeoutMs: h.idleTimeoutMs ?? MCP_HTTP_DEFAULTS.idleTimeoutMs,
          stateless: h.stateless ?? MCP_HTTP_DEFAULTS.stateless,
          allowedOrigins: h.allowedOrigins ?? [],
          allowedHosts: h.allowedHosts ?? [],
          ...(h.oauth !== undefined ? { oauth: oauthSettings(h.oauth) } : {}),
        },
        (caller) => open(caller),
      );
      servers.add(listening);
      return listening;
    },
    get alive() {
      return !closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...servers].map((each) => each.close()));
      await Promise.all([...sessions].map((each) => each.close()));
    },
    [Symbol.asyncDispose]() {
      return server.close();
    },
  };
  return server;
}
