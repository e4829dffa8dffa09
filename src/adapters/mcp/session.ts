/**
 * @module src/adapters/mcp/session
 * One MCP session: one SDK `Server` on one transport (stdio, or one
 * Streamable HTTP session) and one Caller, so deferred tools found by
 * tool_search are this session's alone and its calls carry `mcp:<session>`
 * into the ledger. The caller's id is also the session's isolation scope:
 * what a tool leaves behind in one session never reaches another's calls.
 *
 * ```
 * tools/list ─▶ host.declarations({ caller }) + host.tools() ─▶ Tool[]
 * tools/call ─▶ host.call(name, args, { caller, scope: caller.id, signal }) ─▶ CallToolResult
 *                 signal: notifications/cancelled, or the HTTP client gone
 *                 progress: every progressIntervalMs while it runs, when asked
 * host events (quarantine, release, state_changed_elsewhere, tools_changed) ─▶ tools/list_changed
 * ```
 *
 * The low-level `Server` is used, not `McpServer.registerTool`: a tool's
 * JSON Schema is served exactly as the host declares it (v1's registerTool
 * wants zod), the list differs per session, and a bad input comes back as
 * the host's own `invalid_input` result, as it does through every adapter.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Host } from "../../host/index.js";
import { createCaller, type Caller } from "../../registry/index.js";
import { toCallToolResult } from "./call-result.js";
import { listTools } from "./tool-list.js";

export type SessionSettings = {
  name: string;
  version: string;
  progressIntervalMs: number;
  instructions: string | undefined;
};

/** This host's quarantines and releases, another process's as the host learns them, and tools added or replaced. */
const LIST_CHANGING_EVENTS: ReadonlySet<string> = new Set(["quarantine", "release", "state_changed_elsewhere", "tools_changed"]);

export class McpSession {
  readonly server: Server;
  readonly caller: Caller;
  readonly #host: Host;
  readonly #settings: SessionSettings;
  /** Signals that abort a call when its HTTP request's client goes away, by request id. */
  readonly #disconnects = new Map<string, AbortSignal>();
  readonly #unsubscribe: () => void;
  #closed = false;

  readonly #onClosed: () => void;

  /** `onClosed`: told once, when the session closes for any reason. */
  constructor(host: Host, callerId: string, settings: SessionSettings, onClosed: () => void = () => {}) {
    this.#host = host;
    this.#onClosed = onClosed;
    this.#settings = settings;
    this.caller = createCaller({ origin: "model", id: callerId });
    this.server = new Server(
      { name: settings.name, version: settings.version },
      { capabilities: { tools: { listChanged: true } }, ...(settings.instructions !== undefined ? { instructions: settings.instructions } : {}) },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(this.#host, this.caller) }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.#call(request.params.name, request.params.arguments ?? {}, extra.requestId, extra.signal, request.params._meta?.progressToken, extra.sendNotification),
    );
    this.#unsubscribe = host.on((event) => {
      if (LIST_CHANGING_EVENTS.has(event.type)) this.#listChanged();
    });
  }

  get alive(): boolean {
    return !this.#closed;
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

  async #call(
    name: string,
    input: unknown,
    requestId: RequestId,
    cancelled: AbortSignal,
    progressToken: string | number | undefined,
    notify: (notification: { method: "notifications/progress"; params: { progressToken: string | number; progress: number; message?: string } }) => Promise<void>,
  ): Promise<CallToolResult> {
    const gone = this.#disconnects.get(JSON.stringify(requestId));
    const signal = gone === undefined ? cancelled : AbortSignal.any([cancelled, gone]);
    const activatedBefore = this.caller.activated.size;
    const started = Date.now();
    let progress: NodeJS.Timeout | undefined;
    if (progressToken !== undefined) {
      let ticks = 0;
      progress = setInterval(() => {
        ticks += 1;
        const seconds = Math.round((Date.now() - started) / 1000);
        notify({ method: "notifications/progress", params: { progressToken, progress: ticks, message: `${name} running for ${seconds} s` } }).catch(() => {
          // The client is gone; the call's own signal says so.
        });
      }, this.#settings.progressIntervalMs);
    }
    try {
      const result = await this.#host.call(name, input, { caller: this.caller, scope: this.caller.id, signal });
      // tool_search activated tools for this session: its list just grew.
      if (this.caller.activated.size !== activatedBefore) this.#listChanged();
      return toCallToolResult(result);
    } finally {
      if (progress !== undefined) clearInterval(progress);
    }
  }

  #listChanged(): void {
    if (this.#closed || this.server.transport === undefined) return;
    // A client that went away cannot be told; its next list is fresh anyway.
    this.server.sendToolListChanged().catch(() => {});
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#onClosed();
    await this.server.close();
  }
}
