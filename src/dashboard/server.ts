/**
 * @module src/dashboard/server
 * createDashboard(options): the audit dashboard, an HTTP server on
 * 127.0.0.1. It owns a read-only DashboardReader (every page's query) and a
 * Ledger on the same ledger (the page's quarantines and releases, the same
 * writes the CLI makes), and closes the server, then both, in close().
 *
 * ```
 * request ─▶ security headers ─▶ Host / Origin / Sec-Fetch-Site (guard.ts) ─▶ 421/403
 *   ├ GET a page file (assets.ts; no data, no token)
 *   └ /api/* ─▶ bearer token ─▶ 401 ─▶ DashboardApi (api.ts) ─▶ JSON
 * ```
 *
 * The ledger (a SQLite file or a postgres:// URL) must be one already
 * (open-ledger.ts), so a wrong --ledger never gets the ledger's tables
 * written into it (NotALedgerError).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HostClosedError } from "../errors.js";
import { apiErrorOf, DashboardApi, ApiError } from "./api.js";
import { loadAssets, type Asset } from "./assets.js";
import { Guard, setSecurityHeaders } from "./guard.js";
import { openDashboardLedger } from "./open-ledger.js";
import { resolveDashboardOptions, type DashboardOptions } from "./options.js";

/** A quarantine's body is a source id and a reason: far below this. */
const MAX_BODY_BYTES = 16 * 1024;

export type Dashboard = {
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  /** The URL with the token in its fragment (never sent to the server, never in a log): what to open. */
  readonly openUrl: string;
  readonly token: string;
  readonly port: number;
  readonly alive: boolean;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

export async function createDashboard(options: DashboardOptions): Promise<Dashboard> {
  const resolved = resolveDashboardOptions(options);
  const assets = loadAssets();
  const { ledger, reader, library } = await openDashboardLedger(resolved.ledger);
  const api = new DashboardApi(reader, ledger, resolved, library);
  let guard: Guard | undefined;
  const server = createServer((request, response) => {
    // The guard knows the port only once listening: a request before then is early.
    if (guard === undefined) return answer(response, 503, { error: "the dashboard is starting" });
    serve(request, response, guard, assets, api).catch(() => {
      // A failure past the API's own answers (a socket gone mid-write): never an unhandled rejection.
      if (!response.headersSent) answer(response, 500, { error: "the dashboard failed to answer" });
      else response.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(resolved.port, "127.0.0.1", () => resolve());
    });
  } catch (error) {
    await Promise.all([reader.close(), library.close()]);
    await ledger.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  guard = new Guard(port, resolved.token);
  return new RunningDashboard(server, port, resolved.token, async () => {
    await Promise.all([reader.close(), library.close()]);
    await ledger.close();
  });
}

class RunningDashboard implements Dashboard {
  readonly url: string;
  readonly openUrl: string;
  readonly token: string;
  readonly port: number;
  readonly #server: Server;
  readonly #closeLedger: () => Promise<void>;
  #closed = false;

  constructor(server: Server, port: number, token: string, closeLedger: () => Promise<void>) {
    this.#server = server;
    this.port = port;
    this.token = token;
    this.url = `http://127.0.0.1:${port}/`;
    this.openUrl = `${this.url}#token=${token}`;
    this.#closeLedger = closeLedger;
  }

  get alive(): boolean {
    return !this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    await this.#closeLedger();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

async function serve(request: IncomingMessage, response: ServerResponse, guard: Guard, assets: Map<string, Asset>, api: DashboardApi): Promise<void> {
  setSecurityHeaders(response);
  const refused = guard.checkSite(request);
  if (refused !== null) return answer(response, refused.status, { error: refused.message });
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const method = request.method ?? "GET";
  if (!url.pathname.startsWith("/api/")) {
    const asset = assets.get(url.pathname);
    if (asset === undefined || (method !== "GET" && method !== "HEAD")) return answer(response, 404, { error: "not found" });
    response.writeHead(200, { "Content-Type": asset.type, "Content-Length": asset.body.length });
    response.end(method === "HEAD" ? undefined : asset.body);
    return;
  }
  const unauthorized = guard.checkToken(request);
  if (unauthorized !== null) return answer(response, unauthorized.status, { error: unauthorized.message });
  try {
    const result = await api.handle(method, url.pathname, url.searchParams, () => readJson(request));
    answer(response, result.status, result.body);
  } catch (error) {
    if (error instanceof HostClosedError) return answer(response, 503, { error: "the dashboard is closing" });
    const { status, message } = apiErrorOf(error);
    answer(response, status, { error: message });
  }
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}

/** A JSON body, at most MAX_BODY_BYTES, sent as application/json (a plain form post cannot be one). */
async function readJson(request: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) throw new ApiError(415, "send the body as application/json");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ApiError(400, "the body is not JSON");
  }
}
