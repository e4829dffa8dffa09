/**
 * @module test/adapters/responses-server
 * A scripted OpenAI Responses endpoint on 127.0.0.1: answers POST
 * /v1/responses with the next scripted response and keeps every request
 * body, so a test can drive the real `openai` client and read exactly what
 * it sent.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type ScriptedResponses = {
  /** The baseURL to give the client. */
  baseURL: string;
  bodies: Array<Record<string, unknown>>;
  close(): Promise<void>;
};

export async function startResponsesServer(script: Array<{ output: unknown[]; status?: string }>): Promise<ScriptedResponses> {
  const bodies: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/responses") {
        res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      const next = script[bodies.length - 1];
      if (next === undefined) {
        res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: "the script ran out" } }));
        return;
      }
      const body = { id: `resp_${bodies.length}`, object: "response", created_at: 0, model: "gpt-test", status: next.status ?? "completed", output: next.output, usage: null };
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const functionCall = (callId: string, name: string, args: unknown) => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
  status: "completed",
});

export const assistantText = (text: string) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});
