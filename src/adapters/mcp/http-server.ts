/**
 * @module src/adapters/mcp/http-server
 * Streamable HTTP at `/mcp` on a node:http server, bound to 127.0.0.1 unless
 * told otherwise. With sessions (the default): one McpSession per MCP
 * session id, created by an `initialize` POST and ended by DELETE, by
 * expiry or eviction (http-sessions.ts), or by close(). Stateless: a
 * session per POST (http-stateless.ts).
 *
 * ```
 * request ─▶ /mcp? ─▶ guard (Host, Origin, bearer token) ─▶ 404 | 403 | 401
 *   OAuth (oauth.ts): the metadata at /.well-known/oauth-protected-resource[/mcp];
 *         the JWT checked ─▶ 401 | 403 insufficient_scope | 503; the session bound to its subject
 *   POST: body (http-body.ts) ─▶ 413 | 400 -32700 | 400 -32600
 *         stateless ─▶ a session for this request alone
 *         ─▶ mcp-session-id? its session (else 404) : initialize? new session (else 400)
 *            new session at maxSessions: the one idle longest is closed (else 503)
 *         ─▶ tools/call ids tied to this connection: the client hangs up ─▶ the call is aborted
 *   GET (the session's notification stream), DELETE ─▶ the session's transport (stateless: 405)
 * ```
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../../registry/index.js";
import { refuse, refuseHostOrOrigin, type AllowedHost, type GuardSettings } from "./http-guard.js";
import { OAuthResource, type Grant, type OAuthSettings } from "./oauth.js";
import { jsonRpcError, readMessages } from "./http-body.js";
import { HttpSessions } from "./http-sessions.js";
import { serveStateless, StatelessCallers } from "./http-stateless.js";
import type { McpSession } from "./session.js";

export const MCP_PATH = "/mcp";

export type HttpSettings = {
  host: string;
  port: number;
  token: string;
  maxBodyBytes: number;
  /** Sessions open at once; stateless: callers whose deferred tools are remembered. */
  maxSessions: number;
  /** A session with no request open this long is closed. */
  idleTimeoutMs: number;
  /** No session ids: each POST stands alone. */
  stateless: boolean;
  allowedOrigins: readonly string[];
  /** Names the Host header may take besides this server's own address (http-guard.ts). */
  allowedHosts: readonly AllowedHost[];
  /** Bearer JWTs of an issuer instead of the static token (oauth.ts). */
  oauth?: OAuthSettings;
  /** No token at all (a loopback address only: checked by listen's options). */
  open?: boolean;
};

const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The builtins a token needs its own scope to call, by the OAuth scope settings' key. */
const SCOPED_TOOLS = { create_tool: "createTool", run_code: "runCode" } as const;

export type McpHttpServer = {
  /** `http://<host>:<port>/mcp` */
  readonly url: string;
  /** The static bearer token ("" with OAuth: the issuer's tokens are the credentials). */
  readonly token: string;
  /** Sessions open now (stateless: requests being answered). */
  readonly sessions: number;
  close(): Promise<void>;
};

function answer(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(jsonRpcError(code, message));
}

export async function listenHttp(settings: HttpSettings, newSession: (caller: string | Caller) => McpSession): Promise<McpHttpServer> {
  const sessions = new HttpSessions(settings.idleTimeoutMs);
  const callers = new StatelessCallers(settings.maxSessions);
  const statelessOpen = new Set<McpSession>();
  let guard: GuardSettings | undefined;
  let oauth: OAuthResource | undefined;
  /** The caller (from the token's subject) each session was opened for, with OAuth. */
  const owners = new WeakMap<McpSession, string>();

  /**
   * The Host and Origin checks (else the refusal is answered); a browser's
   * allowed Origin then gets CORS headers, on a refusal of its token too,
   * so a web client (the Inspector) can read WWW-Authenticate and the session id.
   */
  const passesHostAndOrigin = (req: IncomingMessage, res: ServerResponse): boolean => {
    const refusal = refuseHostOrOrigin(req, guard as GuardSettings);
    if (refusal !== undefined) {
      answer(res, refusal.status, -32001, refusal.message, refusal.headers);
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Vary", "Origin");
      res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate");
    }
    return true;
  };

  /** The request's grant (OAuth), null (static token, checked), or the refusal already answered. */
  const admit = async (req: IncomingMessage, res: ServerResponse): Promise<Grant | null | undefined> => {
    if (!passesHostAndOrigin(req, res)) return undefined;
    if (oauth === undefined && settings.open !== true) {
      const refusal = refuse(req, guard as GuardSettings);
      if (refusal !== undefined) return void answer(res, refusal.status, -32001, refusal.message, refusal.headers);
    }
    if (oauth === undefined) return null;
    const granted = await oauth.authenticate(req.headers.authorization);
    if ("status" in granted) return void answer(res, granted.status, -32001, granted.message, granted.headers);
    return granted;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    const resource = oauth;
    const isMetadata = resource !== undefined && (path === METADATA_PATH || path === `${METADATA_PATH}${MCP_PATH}`);
    if (!isMetadata && path !== MCP_PATH) return answer(res, 404, -32000, `not found: corral serves MCP at ${MCP_PATH}`);
    if (req.method === "OPTIONS") return preflight(req, res);
    if (isMetadata) return passesHostAndOrigin(req, res) ? metadata(req, res, resource) : undefined;
    const grant = await admit(req, res);
    if (grant === undefined) return;

    const sessionId = req.headers["mcp-session-id"];
    const live = typeof sessionId === "string" && !settings.stateless ? sessions.get(sessionId) : undefined;
    if (live !== undefined && !ownedBy(live.session, grant)) return answer(res, 403, -32001, "this MCP session belongs to another subject: initialize a session of your own");
    if (req.method !== "POST") {
      if (settings.stateless) return answer(res, 405, -32000, "this server is stateless: only POST is served", { Allow: "POST" });
      if (live === undefined) return answer(res, typeof sessionId === "string" ? 404 : 400, -32001, "no such MCP session: initialize first");
      // A notification stream (GET) alone keeps no session: only what the client sends does.
      if (req.method === "DELETE") sessions.track(live, res);
      return live.transport.handleRequest(req, res);
    }

    const read = await readMessages(req, res, settings.maxBodyBytes);
    if (!read.ok) return read.status === 413 ? undefined : answer(res, read.status, read.code, read.message);
    const unscoped = grant === null ? undefined : missingScope(read.messages, grant);
    if (unscoped !== undefined) return answer(res, unscoped.status, -32001, unscoped.message, unscoped.headers);
    if (settings.stateless) return stateless(req, res, read.body, read.messages, grant);
    if (live === undefined) {
      if (typeof sessionId === "string") return answer(res, 404, -32001, "no such MCP session: initialize a new one");
      if (!read.messages.some((message) => isInitializeRequest(message))) return answer(res, 400, -32600, "Invalid Request: no MCP session; the first request must be initialize");
      if (!(await sessions.makeRoom(settings.maxSessions))) {
        return answer(res, 503, -32000, `too many MCP sessions (${settings.maxSessions}), all of them busy; try again once one is idle, or raise maxSessions`);
      }
      return startSession(req, res, read.body, grant);
    }
    sessions.track(live, res);
    const untie = tieCallsToConnection(live.session, read.messages, res);
    try {
      await live.transport.handleRequest(req, res, read.body);
    } finally {
      res.once("close", untie);
    }
  };

  /** A browser's CORS preflight: answered without a token (it carries none), after the Host and Origin checks. */
  const preflight = (req: IncomingMessage, res: ServerResponse): void => {
    if (!passesHostAndOrigin(req, res)) return;
    res.writeHead(204, {
      "Access-Control-Allow-Methods": "GET, POST, DELETE",
      "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id, Corral-Caller",
      "Access-Control-Max-Age": "600",
    });
    res.end();
  };

  const ownedBy = (session: McpSession, grant: Grant | null): boolean => grant === null || owners.get(session) === grant.caller;

  /** The tools/call requests of a message batch that call a builtin the token has no scope for. */
  const missingScope = (messages: JSONRPCMessage[], grant: Grant) => {
    const resource = oauth as OAuthResource;
    for (const message of messages) {
      if (!isJSONRPCRequest(message) || message.method !== "tools/call") continue;
      const name = (message.params as { name?: unknown } | undefined)?.name;
      const key = typeof name === "string" && Object.hasOwn(SCOPED_TOOLS, name) ? SCOPED_TOOLS[name as keyof typeof SCOPED_TOOLS] : undefined;
      if (key !== undefined && !grant.scopes.has(resource.scopes[key])) return resource.insufficientScope(resource.scopes[key], `calling ${String(name)}`);
    }
    return undefined;
  };

  const stateless = async (req: IncomingMessage, res: ServerResponse, body: unknown, messages: JSONRPCMessage[], grant: Grant | null): Promise<void> => {
    // With OAuth the token names the caller; the Corral-Caller header is for a shared static token.
    const caller = grant === null ? callers.of(req) : callers.named(grant.caller);
    if (typeof caller === "string") return answer(res, 400, -32600, `Invalid Request: ${caller}`);
    const session = newSession(caller);
    statelessOpen.add(session);
    res.once("close", () => statelessOpen.delete(session));
    await serveStateless(req, res, body, session, (closing) => tieCallsToConnection(session, messages, closing));
  };

  const startSession = async (req: IncomingMessage, res: ServerResponse, body: unknown, grant: Grant | null): Promise<void> => {
    const id = randomUUID();
    const session = newSession(grant === null ? `mcp:${id}` : grant.caller);
    if (grant !== null) owners.set(session, grant.caller);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (initialized): void => sessions.add(initialized, session, transport, res),
      // Awaited by the transport before it answers the DELETE: the answer comes once the calls are recorded.
      onsessionclosed: (closed) => sessions.end(closed, "deleted"),
    });
    transport.onclose = () => void sessions.end(id, "deleted");
    session.endResponsesWith((requestId) => transport.closeSSEStream(requestId));
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused made no session: nothing may keep this one.
    if (sessions.get(id) === undefined) await session.close();
  };

  const server: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answer(res, 500, -32603, `internal error: ${(error as Error).message}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  guard = { token: settings.token, allowedHosts: settings.allowedHosts, origins: new Set(settings.allowedOrigins), port };
  const hostForUrl = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  const url = `http://${hostForUrl}:${port}${MCP_PATH}`;
  if (settings.oauth !== undefined) oauth = new OAuthResource(settings.oauth, url);

  return {
    url,
    token: settings.token,
    get sessions() {
      return settings.stateless ? statelessOpen.size : sessions.size;
    },
    async close() {
      await sessions.endAll();
      await Promise.all([...statelessOpen].map((session) => session.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** RFC 9728's document, to a GET that passes the Host and Origin checks (no token: it is how a client learns where to get one). */
function metadata(req: IncomingMessage, res: ServerResponse, resource: OAuthResource): void {
  if (req.method !== "GET") return answer(res, 405, -32000, "the protected resource metadata is read with GET", { Allow: "GET" });
  res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "max-age=300" });
  res.end(JSON.stringify(resource.metadata()));
}

/**
 * A tools/call whose client hangs up before its answer is aborted: nobody
 * will read the result, and a long call should not hold a worker for it.
 */
function tieCallsToConnection(session: McpSession, messages: JSONRPCMessage[], res: ServerResponse): () => void {
  const calls = messages.filter((message) => isJSONRPCRequest(message) && message.method === "tools/call");
  if (calls.length === 0) return () => {};
  const gone = new AbortController();
  const unties = calls.map((message) => session.abortOnDisconnect((message as { id: string | number }).id, gone.signal));
  res.once("close", () => {
    if (!res.writableFinished) gone.abort(new Error("the MCP client closed the connection"));
  });
  return () => unties.forEach((untie) => untie());
}
