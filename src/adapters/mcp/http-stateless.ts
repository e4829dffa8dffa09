/**
 * @module src/adapters/mcp/http-stateless
 * Stateless Streamable HTTP, for a fleet behind a load balancer: no session
 * id, every POST stands alone (its own SDK server and transport, closed
 * when its response is), so any member of the fleet can answer any request.
 * GET and DELETE have nothing to stream or end: 405.
 *
 * Who the caller is: the `Corral-Caller` header (1-100 letters, digits, '.',
 * '_' or '-'), chosen by the client; without it, one caller shared by every
 * client of this server. The header is not a credential: the bearer token
 * is (anyone holding it may name any caller). A caller's deferred tools
 * (what its tool_search found) are kept in this process for the last
 * `maxCallers` callers seen, so they hold across requests that reach the
 * same process; behind a balancer route by the header (sticky), or call
 * tool_search again where a member does not know the caller.
 *
 * Nothing can reach the client outside its request: no tools/list_changed,
 * no elicitation (a stateless request declares no client capabilities), so
 * effects whose policy is `ask` are refused naming the config key.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createCaller, type Caller } from "../../registry/index.js";
import type { McpSession } from "./session.js";

export const CALLER_HEADER = "corral-caller";
const CALLER_NAME = /^[A-Za-z0-9._-]{1,100}$/;
const SHARED_CALLER = "mcp:stateless";

/** The callers seen last, least recently seen first (a Map keeps insertion order). */
export class StatelessCallers {
  readonly #callers = new Map<string, Caller>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#callers.size;
  }

  /** The request's caller, or an error message when its header is malformed. */
  of(req: IncomingMessage): Caller | string {
    const header = req.headers[CALLER_HEADER];
    if (Array.isArray(header) || (header !== undefined && !CALLER_NAME.test(header))) {
      return `the ${CALLER_HEADER} header is 1-100 letters, digits, '.', '_' or '-', given once`;
    }
    return this.named(header === undefined ? SHARED_CALLER : `mcp:caller:${header}`);
  }

  /** The caller `id` (kept as the latest seen). */
  named(id: string): Caller {
    const known = this.#callers.get(id);
    if (known !== undefined) this.#callers.delete(id);
    const caller = known ?? createCaller({ origin: "model", id });
    this.#callers.set(id, caller);
    if (this.#callers.size > this.#max) this.#callers.delete(this.#callers.keys().next().value as string);
    return caller;
  }
}

/** One request, one session: it ends when the response does, cancelling what still runs. */
export async function serveStateless(req: IncomingMessage, res: ServerResponse, body: unknown, session: McpSession, tie: (res: ServerResponse) => () => void): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  session.endResponsesWith((requestId) => transport.closeSSEStream(requestId));
  res.once("close", () => void session.close("the stateless MCP request ended"));
  await session.connect(transport);
  const untie = tie(res);
  res.once("close", untie);
  await transport.handleRequest(req, res, body);
}
