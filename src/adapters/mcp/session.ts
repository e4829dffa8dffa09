/**
 * @module src/adapters/mcp/session
 * One MCP session: one SDK `Server` on one transport (stdio, one Streamable
 * HTTP session, or one stateless request) and one Caller, so deferred tools
 * found by tool_search are this caller's alone and its calls carry its id
 * into the ledger. The caller's id is also the isolation scope: what a tool
 * leaves behind for one caller never reaches another's calls.
 *
 * ```
 * tools/list ─▶ host.declarations({ caller }) + host.tools() ─▶ Tool[]
 * tools/call ─▶ params checked (call-params.ts: -32602, as for tools/list) ─▶ host.call(name, args, { caller, scope, signal, askUser })
 *                 unknown_tool ─▶ JSON-RPC -32602; every other result ─▶ CallToolResult
 *                 signal: notifications/cancelled, the HTTP client gone, or the session closed
 *                 askUser: the client's user through elicitation (elicit.ts), when the server asks users
 *                 progress: the tool's ctx.progress, and a heartbeat every progressIntervalMs until it reports, when asked (talk-back.ts)
 *                 onLog: ctx.log as notifications/message at or above the client's level; console lines too once it set one
 *                 elicitUser, sampleModel: the tool's ctx.elicit and ctx.sample, to a client that declared elicitation or sampling
 *                 cancelled: once the host recorded it, the request's response stream is ended
 * host events (quarantine, release, state_changed_elsewhere, tools_changed) ─▶ tools/list_changed
 * close() ─▶ running calls cancelled, awaited until the ledger recorded them ─▶ the SDK server closed
 * ```
 *
 * The low-level `Server` is used, not `McpServer.registerTool`: a tool's
 * JSON Schema is served exactly as the host declares it (v1's registerTool
 * wants zod), the list differs per session, and a bad input comes back as
 * the host's own `invalid_input` result, as it does through every adapter.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Host } from "../../host/index.js";
import { createCaller, type Caller } from "../../registry/index.js";
import { toCallToolResult } from "./call-result.js";
import { checkListParams, methodNotFound, parseCallParams, unknownTool } from "./call-params.js";
import { askThroughClient } from "./elicit.js";
import { listTools } from "./tool-list.js";
import { LogLevels, talkBackFor, type Notify, type SendRequest } from "./talk-back.js";

export type SessionSettings = {
  name: string;
  version: string;
  progressIntervalMs: number;
  instructions: string | undefined;
  /** Effects whose policy is `ask` go to the client's user (elicitation); otherwise they are refused naming the config key. */
  askUsers: boolean;
  /** How long a person has to answer an approval question. */
  approvalTimeoutMs: number;
};

type CallExtra = { requestId: RequestId; signal: AbortSignal; sendNotification: Notify; sendRequest: SendRequest };

/** This host's quarantines and releases, another process's as the host learns them, and tools added or replaced. */
const LIST_CHANGING_EVENTS: ReadonlySet<string> = new Set(["quarantine", "release", "state_changed_elsewhere", "tools_changed"]);

export class McpSession {
  readonly server: Server;
  readonly caller: Caller;
  readonly #host: Host;
  readonly #settings: SessionSettings;
  /** Signals that abort a call when its HTTP request's client goes away, by request id. */
  readonly #disconnects = new Map<string, AbortSignal>();
  /** Aborted as the session closes: every running call is cancelled with it. */
  readonly #closing = new AbortController();
  /** Running calls, each settled once its outcome is recorded. */
  readonly #running = new Set<Promise<unknown>>();
  readonly #unsubscribe: () => void;
  readonly #onClosed: () => void;
  #endResponse: (requestId: RequestId) => void = () => {};
  /** The level the client asked for with logging/setLevel (the tools' log messages below it are not sent). */
  readonly #logLevels = new LogLevels();
  #closed = false;

  /**
   * `caller`: an id for a new Caller, or a Caller kept across sessions (a
   * stateless request's). `onClosed`: told once, when the session closes.
   */
  constructor(host: Host, caller: string | Caller, settings: SessionSettings, onClosed: () => void = () => {}) {
    this.#host = host;
    this.#onClosed = onClosed;
    this.#settings = settings;
    this.caller = typeof caller === "string" ? createCaller({ origin: "model", id: caller }) : caller;
    this.server = new Server(
      { name: settings.name, version: settings.version },
      { capabilities: { tools: { listChanged: true }, logging: {} }, ...(settings.instructions !== undefined ? { instructions: settings.instructions } : {}) },
    );
    // The SDK answers logging/setLevel itself when logging is declared (and ignores a bad level): ours checks it, and keeps the level per session.
    this.server.removeRequestHandler("logging/setLevel");
    // tools/list and tools/call are not registered with setRequestHandler:
    // the SDK checks a handler's params first and answers a malformed
    // request with its validator's dump. They are served by the fallback,
    // which sees every method no handler took, and checked here.
    this.server.fallbackRequestHandler = async (request, extra) => {
      if (request.method === "tools/call") return this.#tracked(request.params, extra);
      if (request.method === "logging/setLevel") return this.#logLevels.set(request.params);
      if (request.method !== "tools/list") throw methodNotFound(request.method);
      checkListParams(request.params);
      // A host on a shared store lists the library's tools once it has read them (at once for a host that has).
      await this.#host.library.ready();
      return { tools: listTools(this.#host, this.caller) };
    };
    this.#unsubscribe = host.on((event) => {
      if (LIST_CHANGING_EVENTS.has(event.type)) this.#listChanged();
    });
  }

  get alive(): boolean {
    return !this.#closed;
  }

  /** Calls running now (a session with none may be closed without cancelling anything). */
  get running(): number {
    return this.#running.size;
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /** The HTTP front tells which request ids a client's connection carries. */
  abortOnDisconnect(requestId: RequestId, signal: AbortSignal): () => void {
    const key = JSON.stringify(requestId);
    this.#disconnects.set(key, signal);
    return () => {
      if (this.#disconnects.get(key) === signal) this.#disconnects.delete(key);
    };
  }

  /** The HTTP front's way to end a request's response stream (a cancelled call gets no response, by the specification). */
  endResponsesWith(end: (requestId: RequestId) => void): void {
    this.#endResponse = end;
  }

  #tracked(params: unknown, extra: CallExtra): Promise<CallToolResult> {
    const running = this.#call(params, extra);
    const settled = running.catch(() => undefined);
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return running;
  }

  async #call(params: unknown, extra: CallExtra): Promise<CallToolResult> {
    const { name, arguments: input = {}, _meta } = parseCallParams(params);
    const gone = this.#disconnects.get(JSON.stringify(extra.requestId));
    const signal = AbortSignal.any(gone === undefined ? [extra.signal, this.#closing.signal] : [extra.signal, this.#closing.signal, gone]);
    const activatedBefore = this.caller.activated.size;
    const talkBack = talkBackFor(this.server, extra, { name, progressToken: _meta?.progressToken, heartbeatMs: this.#settings.progressIntervalMs, levels: this.#logLevels, timeoutMs: this.#settings.approvalTimeoutMs });
    try {
      const askUser = this.#settings.askUsers ? { askUser: askThroughClient(this.server, extra.sendRequest, this.#settings.approvalTimeoutMs) } : {};
      const result = await this.#host.call(name, input, { caller: this.caller, scope: this.caller.id, signal, ...askUser, ...talkBack.options });
      await talkBack.consoleLines(result.logs);
      // The client cancelled: the SDK sends no response (as the specification says), so the stream is ended here, now that the ledger has the call.
      if (extra.signal.aborted) this.#endResponse(extra.requestId);
      if (!result.ok && result.error.kind === "unknown_tool") throw unknownTool(name);
      // tool_search activated tools for this caller: its list just grew.
      if (this.caller.activated.size !== activatedBefore) this.#listChanged();
      return toCallToolResult(result);
    } finally {
      talkBack.stop();
    }
  }

  #listChanged(): void {
    if (this.#closed || this.server.transport === undefined) return;
    // A client that went away cannot be told; its next list is fresh anyway.
    this.server.sendToolListChanged().catch(() => {});
  }

  /** Cancels what runs (`why` is the calls' cancellation reason), waits until the ledger has recorded it, then closes. */
  async close(why = "the MCP session was closed"): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#onClosed();
    this.#closing.abort(new Error(why));
    await Promise.all(this.#running);
    await this.server.close();
  }
}
