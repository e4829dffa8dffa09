/**
 * @module src/adapters/mcp/http-body
 * A POST body read into JSON-RPC messages, under a size cap, with the
 * answer JSON-RPC 2.0 gives each way a body can be wrong:
 *
 * ```
 * body > maxBodyBytes ─▶ 413: written at once, the rest of the upload read
 *                        and dropped (at most DRAIN_BYTES more, for at most
 *                        DRAIN_MS), then the connection closed
 * not JSON           ─▶ 400, -32700 "Parse error"
 * JSON, not JSON-RPC ─▶ 400, -32600 "Invalid Request" (an empty batch too)
 * ```
 *
 * The drain is what lets a client that is still sending read the 413: a
 * socket closed under an upload in flight makes the client's kernel see a
 * reset, and Node's fetch then reports ECONNRESET instead of the status.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How much of an oversized upload is read and dropped after the 413, and for how long, before the connection is closed. */
export const DRAIN_BYTES = 16 * 1024 * 1024;
export const DRAIN_MS = 10_000;

export type BodyRead = { ok: true; body: unknown; messages: JSONRPCMessage[] } | { ok: false; status: 400; code: number; message: string } | { ok: false; status: 413 };

export function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
}

/** Reads the body; on 413 the answer is already written (and the connection will close): the caller only returns. */
export async function readMessages(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<BodyRead> {
  const text = await readCapped(req, res, maxBytes);
  if (text === undefined) return { ok: false, status: 413 };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Parse error: the request body is not JSON" };
  }
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) return { ok: false, status: 400, code: -32600, message: "Invalid Request: an empty batch" };
  const messages: JSONRPCMessage[] = [];
  for (const [index, each] of list.entries()) {
    const parsed = JSONRPCMessageSchema.safeParse(each);
    if (!parsed.success) {
      const where = Array.isArray(body) ? `message ${index} of the batch is` : "the body is";
      return { ok: false, status: 400, code: -32600, message: `Invalid Request: ${where} not a JSON-RPC 2.0 request, notification or response` };
    }
    messages.push(parsed.data);
  }
  return { ok: true, body, messages };
}

function readCapped(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > maxBytes) {
      refuseTooLarge(req, res, maxBytes);
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd);
      refuseTooLarge(req, res, maxBytes);
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks).toString("utf8"));
    req.on("data", onData).on("end", onEnd).once("error", reject);
  });
}

/**
 * The 413 goes out whole at once (its Content-Length tells the client it is
 * complete), but the response is ended, and so the connection closed, only
 * once the upload is over or the drain's bound is reached.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  const text = jsonRpcError(-32600, `the request body is larger than ${maxBytes} bytes; send a smaller one`);
  res.writeHead(413, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), Connection: "close" });
  res.write(text);
  let drained = 0;
  const close = () => {
    clearTimeout(timer);
    req.off("data", onData).off("end", close);
    // Past the bound nothing more is read: the socket goes, whatever the client still sends.
    res.end(() => {
      if (!req.complete) req.socket.destroy();
    });
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) close();
  };
  const timer = setTimeout(close, DRAIN_MS);
  timer.unref();
  req.on("data", onData).once("end", close).once("close", () => clearTimeout(timer));
  req.resume();
}
