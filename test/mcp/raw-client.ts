/**
 * @module test/mcp/raw-client
 * Streamable HTTP by hand with Node's fetch, for what the SDK's client does
 * not do or hides: requests without DELETE, malformed bodies, a stateless
 * server, reading a response stream to its end.
 */
export type RawAnswer = { status: number; sessionId: string | null; text: string; messages: Array<Record<string, unknown>> };

export const PROTOCOL_VERSION = "2025-06-18";

/** The JSON-RPC messages of a JSON or SSE response body. */
export function messagesOf(text: string, contentType: string | null): Array<Record<string, unknown>> {
  if (text === "") return [];
  if (contentType?.includes("text/event-stream")) {
    return text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  }
  const body = JSON.parse(text) as unknown;
  return (Array.isArray(body) ? body : [body]) as Array<Record<string, unknown>>;
}

export function rawClient(url: string, token: string) {
  const headersOf = (extra: Record<string, string>) => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    "mcp-protocol-version": PROTOCOL_VERSION,
    ...extra,
  });
  const post = async (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<RawAnswer> => {
    const response = await fetch(url, { method: "POST", headers: headersOf(headers), body: typeof body === "string" ? body : JSON.stringify(body), ...(signal ? { signal } : {}) });
    const text = await response.text();
    return { status: response.status, sessionId: response.headers.get("mcp-session-id"), text, messages: messagesOf(text, response.headers.get("content-type")) };
  };
  return {
    post,
    /** Starts a session the way a client does (initialize, then initialized); answers its id. */
    async initialize(headers: Record<string, string> = {}, capabilities: Record<string, unknown> = {}): Promise<string> {
      const answer = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: PROTOCOL_VERSION, capabilities, clientInfo: { name: "raw", version: "1" } } }, headers);
      if (answer.status !== 200 || answer.sessionId === null) throw new Error(`initialize answered ${answer.status}: ${answer.text}`);
      const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...headers, "mcp-session-id": answer.sessionId });
      if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
      return answer.sessionId;
    },
    call(id: number, name: string, args: Record<string, unknown>, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<RawAnswer> {
      return post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, headers, signal);
    },
  };
}
