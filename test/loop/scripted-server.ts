/**
 * @module test/loop/scripted-server
 * A small Messages API server on 127.0.0.1 for the loop's tests: it answers
 * each POST /v1/messages with the next scripted response, streamed as real
 * server-sent events (message_start, content blocks with text and
 * input_json deltas, message_delta, message_stop), and records every request
 * body so tests can assert exactly what the loop sent each turn.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type ScriptedResponse = {
  content: ScriptedBlock[];
  stop_reason: string;
  /**
   * Send only this many SSE events, then keep the connection open without
   * a word until the client goes away (for abort tests).
   */
  hangAfterEvents?: number;
};

export type RecordedRequest = {
  path: string;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** True when the client closed the connection before the response ended. */
  closedEarly: boolean;
};

export type ScriptedServer = {
  /** The client's baseURL: `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  /** The `messages` array of each request, in order. */
  sentMessages(): unknown[];
  close(): Promise<void>;
};

/** Serialises one event as the API does: an `event:` line, a `data:` line, a blank line. */
function sse(event: Record<string, unknown> & { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The SSE events of one scripted response, in the order the API sends them. */
export function eventsOf(response: ScriptedResponse, id: string, model: string): Array<Record<string, unknown> & { type: string }> {
  const events: Array<Record<string, unknown> & { type: string }> = [
    {
      type: "message_start",
      message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
    },
    { type: "ping" },
  ];
  response.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      const half = Math.ceil(block.text.length / 2);
      for (const part of [block.text.slice(0, half), block.text.slice(half)]) {
        if (part !== "") events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: part } });
      }
    } else {
      events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      // Split the input JSON in two, as the API does, so the client must join it.
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, half) } });
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(half) } });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason: response.stop_reason, stop_sequence: null }, usage: { output_tokens: 20 } });
  events.push({ type: "message_stop" });
  return events;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function apiError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ type: "error", error: { type: "api_error", message } }));
}

export async function startScriptedServer(script: ScriptedResponse[]): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const server = createServer((request, response) => {
    void (async () => {
      const text = await readBody(request);
      if (request.method !== "POST" || request.url?.split("?")[0] !== "/v1/messages") {
        apiError(response, 404, `no route for ${request.method} ${request.url}`);
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      const recorded: RecordedRequest = { path: request.url, body, closedEarly: false };
      requests.push(recorded);
      response.on("close", () => {
        if (!response.writableFinished) recorded.closedEarly = true;
      });
      const scripted = script[next++];
      if (scripted === undefined) {
        apiError(response, 500, `the script has no response number ${next}`);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      const events = eventsOf(scripted, `msg_${next}`, String(body.model));
      const count = scripted.hangAfterEvents ?? events.length;
      for (const event of events.slice(0, count)) response.write(sse(event));
      if (count >= events.length) response.end();
    })().catch((error: unknown) => apiError(response, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sentMessages: () => requests.map((r) => r.body.messages),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
