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
import { refuse, type AllowedHost, type GuardSettings } from "./http-guard.js";
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
};

export type McpHttpServer = {
  /** `http://<host>:<port>/mcp` */
  readonly url: string;
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

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== MCP_PATH) return answer(res, 404, -32000, `not found: corral serves MCP at ${MCP_PATH}`);
    const refusal = refuse(req, guard as GuardSettings);
    if (refusal !== undefined) return answer(res, refusal.status, -32001, refusal.message, refusal.headers);

    const sessionId = req.headers["mcp-session-id"];
    const live = typeof sessionId === "string" && !settings.stateless ? sessions.get(sessionId) : undefined;
    if (req.method !== "POST") {
      if (settings.stateless) return answer(res, 405, -32000, "this server is stateless: only POST is served", { Allow: "POST" });
      if (live === undefined) return answer(res, typeof sessionId === "string" ? 404 : 400, -32001, "no such MCP session: initialize first");
      // A notification stream (GET) alone keeps no session: only what the client sends does.
      if (req.method === "DELETE") sessions.track(live, res);
      return live.transport.handleRequest(req, res);
    }

    const read = await readMessages(req, res, settings.maxBodyBytes);
    if (!read.ok) return read.status === 413 ? undefined : answer(res, read.status, read.code, read.message);
    if (settings.stateless) return stateless(req, res, read.body, read.messages);
    if (live === undefined) {
      if (typeof sessionId === "string") return answer(res, 404, -32001, "no such MCP session: initialize a new one");
      if (!read.messages.some((message) => isInitializeRequest(message))) return answer(res, 400, -32600, "Invalid Request: no MCP session; the first request must be initialize");
      if (!(await sessions.makeRoom(settings.maxSessions))) {
        return answer(res, 503, -32000, `too many MCP sessions (${settings.maxSessions}), all of them busy; try again once one is idle, or raise maxSessions`);
      }
      return startSession(req, res, read.body);
    }
    sessions.track(live, res);
    const untie = tieCallsToConnection(live.session, read.messages, res);
    try {
      await live.transport.handleRequest(req, res, read.body);
    } finally {
      res.once("close", untie);
    }
  };

  const stateless = async (req: IncomingMessage, res: ServerResponse, body: unknown, messages: JSONRPCMessage[]): Promise<void> => {
    const caller = callers.of(req);
    if (typeof caller === "string") return answer(res, 400, -32600, `Invalid Request: ${caller}`);
    const session = newSession(caller);
    statelessOpen.add(session);
    res.once("close", () => statelessOpen.delete(session));
    await serveStateless(req, res, body, session, (closing) => tieCallsToConnection(session, messages, closing));
  };

  const startSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const id = randomUUID();
    const session = newSession(`mcp:${id}`);
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

  return {
    url: `http://${hostForUrl}:${port}${MCP_PATH}`,
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
