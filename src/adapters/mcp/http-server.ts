/**
 * @module src/adapters/mcp/http-server
 * Streamable HTTP at `/mcp` on a node:http server, bound to 127.0.0.1 unless
 * told otherwise. One McpSession per MCP session id, created by an
 * `initialize` POST and ended by DELETE, by close(), or never reused after.
 *
 * ```
 * request ─▶ /mcp? ─▶ guard (Host, Origin, bearer token) ─▶ 404 | 403 | 401
 *   POST: body ≤ maxBodyBytes (else 413) ─▶ JSON (else -32700, 400)
 *         ─▶ mcp-session-id? its session (else 404) : initialize? new session (else 400)
 *         ─▶ tools/call ids tied to this connection: the client hangs up ─▶ the call is aborted
 *   GET (the session's notification stream), DELETE ─▶ the session's transport
 * ```
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { refuse, type AllowedHost, type GuardSettings } from "./http-guard.js";
import type { McpSession } from "./session.js";

export const MCP_PATH = "/mcp";

export type HttpSettings = {
  host: string;
  port: number;
  token: string;
  maxBodyBytes: number;
  maxSessions: number;
  allowedOrigins: readonly string[];
  /** Names the Host header may take besides this server's own address (http-guard.ts). */
  allowedHosts: readonly AllowedHost[];
};

export type McpHttpServer = {
  /** `http://<host>:<port>/mcp` */
  readonly url: string;
  readonly token: string;
  readonly sessions: number;
  close(): Promise<void>;
};

type Live = { session: McpSession; transport: StreamableHTTPServerTransport };

class BodyTooLarge extends Error {}

function answer(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > maxBytes) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners("data");
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function listenHttp(settings: HttpSettings, newSession: (sessionId: string) => McpSession): Promise<McpHttpServer> {
  const sessions = new Map<string, Live>();
  let guard: GuardSettings | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== MCP_PATH) return answer(res, 404, -32000, `not found: corral serves MCP at ${MCP_PATH}`);
    const refusal = refuse(req, guard as GuardSettings);
    if (refusal !== undefined) return answer(res, refusal.status, -32001, refusal.message, refusal.headers);

    const sessionId = req.headers["mcp-session-id"];
    const live = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (req.method !== "POST") {
      if (live === undefined) return answer(res, typeof sessionId === "string" ? 404 : 400, -32001, "no such MCP session: initialize first");
      return live.transport.handleRequest(req, res);
    }

    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, settings.maxBodyBytes)).toString("utf8"));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        answer(res, 413, -32600, `the request body is larger than ${settings.maxBodyBytes} bytes`, { Connection: "close" });
        req.destroy();
        return;
      }
      return answer(res, 400, -32700, "parse error: the request body is not JSON");
    }
    const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
    if (live === undefined) {
      if (typeof sessionId === "string") return answer(res, 404, -32001, "no such MCP session: initialize a new one");
      if (!messages.some((message) => isInitializeRequest(message))) return answer(res, 400, -32600, "no MCP session: the first request must be initialize");
      if (sessions.size >= settings.maxSessions) return answer(res, 503, -32000, `too many MCP sessions (${settings.maxSessions}); end one with DELETE`);
      return startSession(req, res, body);
    }
    const untie = tieCallsToConnection(live.session, messages, res);
    try {
      await live.transport.handleRequest(req, res, body);
    } finally {
      res.once("close", untie);
    }
  };

  const startSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const id = randomUUID();
    const session = newSession(`mcp:${id}`);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (initialized) => void sessions.set(initialized, { session, transport }),
      onsessionclosed: (closed) => void end(closed),
    });
    transport.onclose = () => void end(id);
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused made no session: nothing may keep this one.
    if (!sessions.has(id)) await session.close();
  };

  const end = async (id: string): Promise<void> => {
    const live = sessions.get(id);
    if (live === undefined) return;
    sessions.delete(id);
    await live.session.close();
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
      return sessions.size;
    },
    async close() {
      await Promise.all([...sessions.keys()].map((id) => end(id)));
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
