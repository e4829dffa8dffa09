/**
 * @module src/capabilities/safe-fetch
 * A fetch performed by the host for a tool, under the source's net policy:
 *
 *   url ─▶ checkUrl: http(s) only, no credentials, on the allow-list
 *       ─▶ connect: DNS through a lookup that refuses private addresses
 *          (IP literals checked up front), the socket's remote address
 *          checked again once connected
 *       ─▶ response: capped (Content-Length first, then bytes as they
 *          arrive, after decompression), all within the call's deadline
 *       ─▶ 3xx + follow: the next URL goes through every check again
 *
 * No agent, so no connection or cookie outlives the request.
 */
import http from "node:http";
import https from "node:https";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type Socket } from "node:net";
import zlib from "node:zlib";
import type { NetPolicy } from "./options.js";
import { matchAllowEntry, type AllowEntry } from "./net-allow.js";
import { refuseAddress } from "./address-policy.js";
import { CapabilityError, failed, refused, tooLarge } from "./capability-error.js";

export type FetchRequest = {
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array | null;
  redirect: "follow" | "error" | "manual";
};

export type FetchAnswer = {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
  url: string;
  redirected: boolean;
};

export type FetchLimits = {
  /** performance.now() past which the fetch is abandoned. */
  deadline: number;
  /** Called before each request goes out (redirects included); throws when the call's budget is spent. */
  takeRequest: () => void;
  /** Resolves a name to its addresses; node:dns by default (tests put a name on a chosen address). */
  resolve?: Resolve;
};

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error === null ? resolve(addresses) : reject(error))));

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Set by the host, never by the tool: framing and routing are ours.
const DROPPED_HEADERS = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "te", "trailer", "expect", "accept-encoding"]);
const CROSS_ORIGIN_DROPPED = new Set(["authorization", "cookie", "proxy-authorization"]);

/** The allow-list entry admitting `url`, or a refusal naming it. */
export function checkUrl(url: URL, policy: NetPolicy): AllowEntry {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refused(`${url.protocol} URLs are never fetched (${url.href.slice(0, 200)}); only http and https`);
  if (url.username !== "" || url.password !== "") throw refused(`URLs with credentials are refused (${url.origin})`);
  const entry = matchAllowEntry(policy.allow, url);
  if (entry === undefined) throw refused(`${url.origin} is not on this source's net allow-list`);
  return entry;
}

function parseUrl(text: string, base?: string): URL {
  try {
    return new URL(text, base);
  } catch {
    throw refused(`"${text.slice(0, 200)}" is not a URL`);
  }
}

/** A DNS lookup that answers only addresses the entry may reach. */
function checkedLookup(entry: AllowEntry, resolveName: Resolve) {
  return (hostname: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolveName(hostname).then((addresses) => {
      const allowed = addresses.filter((address) => refuseAddress(address.address, entry) === undefined);
      if (allowed.length === 0) {
        const why = refuseAddress(addresses[0]?.address ?? "", entry) ?? "no address";
        return callback(refused(`${hostname} resolves to a refused address: ${why}`), "");
      }
      if (options.all === true) callback(null, allowed);
      else callback(null, (allowed[0] as LookupAddress).address, (allowed[0] as LookupAddress).family);
    }, (error: Error) => callback(error, ""));
  };
}

/** The most codings Node's fetch decodes in one response (undici's limit): past it the fetch fails. */
const MAX_CODINGS = 5;

function decoderOf(coding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

/**
 * The decoders of a Content-Encoding list, in the order they run, as Node's
 * fetch (undici) reads it: names trimmed and lower-cased, the last coding
 * applied undone first; a coding it does not know leaves the whole body as
 * it came (none). More than MAX_CODINGS fail, as in Node.
 */
export function decodersOf(header: string | undefined, origin: string): (zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress)[] {
  if (header === undefined || header.trim() === "") return [];
  const codings = header.toLowerCase().split(",").map((coding) => coding.trim());
  if (codings.length > MAX_CODINGS) throw failed(`fetching ${origin} failed: too many content-encodings in response: ${codings.length}, maximum allowed is ${MAX_CODINGS}`);
  const decoders = [];
  for (let i = codings.length - 1; i >= 0; i--) {
    const decoder = decoderOf(codings[i] as string);
    if (decoder === undefined) {
      for (const made of decoders) made.destroy();
      return [];
    }
    decoders.push(decoder);
  }
  return decoders;
}

type Hop = { status: number; statusText: string; headers: [string, string][]; body: Uint8Array; location: string | undefined };

/** One request and its response, capped; no redirect handling. */
function requestOnce(
  url: URL,
  entry: AllowEntry,
  init: { method: string; headers: [string, string][]; body: Uint8Array | null },
  policy: NetPolicy,
  limits: FetchLimits,
  readBody: boolean,
): Promise<Hop> {
  const deadline = limits.deadline;
  return new Promise<Hop>((resolve, reject) => {
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(hostname) !== 0) {
      const why = refuseAddress(hostname, entry);
      if (why !== undefined) return reject(refused(`${url.origin} refused: ${why}`));
    }
    const headers: Record<string, string | string[]> = { "accept-encoding": "gzip, deflate, br", "user-agent": "corral-fetch" };
    for (const [name, value] of init.headers) {
      const key = name.toLowerCase();
      if (DROPPED_HEADERS.has(key)) continue;
      const previous = headers[key];
      headers[key] = previous === undefined || key === "user-agent" ? value : ([] as string[]).concat(previous, value);
    }
    if (init.body !== null) headers["content-length"] = String(init.body.byteLength);
    const module = url.protocol === "https:" ? https : http;
    let settled = false;
    const timer = setTimeout(() => fail(new CapabilityError("timeout", `fetching ${url.origin} ran out of the call's time`)), Math.max(0, deadline - performance.now()));
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error instanceof CapabilityError ? error : failed(`fetching ${url.origin} failed: ${error.message}`));
    };
    const request = module.request({
      protocol: url.protocol,
      hostname,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: init.method,
      headers,
      agent: false,
      lookup: checkedLookup(entry, limits.resolve ?? systemResolve) as never,
      ...(url.protocol === "https:" && isIP(hostname) === 0 ? { servername: hostname } : {}),
    });
    request.on("socket", (socket: Socket) => {
      socket.once("connect", () => {
        const remote = socket.remoteAddress ?? "";
        const why = refuseAddress(remote, entry);
        if (why !== undefined) fail(refused(`${url.origin} refused after connecting: ${why}`));
      });
    });
    request.on("error", fail);
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      const headerPairs: [string, string][] = [];
      const raw = response.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headerPairs.push([raw[i] as string, raw[i + 1] as string]);
      const location = REDIRECTS.has(status) ? response.headers.location : undefined;
      const finish = (body: Uint8Array) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        resolve({ status, statusText: response.statusMessage ?? "", headers: headerPairs, body, location });
      };
      if (!readBody || location !== undefined) return finish(new Uint8Array(0));
      const declared = Number(response.headers["content-length"]);
      if (Number.isFinite(declared) && declared > policy.maxResponseBytes) {
        return fail(tooLarge(`the response of ${url.origin} declares ${declared} bytes, more than the ${policy.maxResponseBytes} allowed`));
      }
      let decoders: ReturnType<typeof decodersOf>;
      try {
        decoders = decodersOf(response.headers["content-encoding"], url.origin);
      } catch (error) {
        return fail(error as Error);
      }
      let stream: NodeJS.ReadableStream = response;
      for (const decoder of decoders) {
        decoder.on("error", fail);
        stream = stream.pipe(decoder);
      }
      if (decoders.length > 0) {
        // Decoded bodies carry no encoding the tool could misread.
        for (let i = headerPairs.length - 1; i >= 0; i--) {
          const name = (headerPairs[i] as [string, string])[0].toLowerCase();
          if (name === "content-encoding" || name === "content-length") headerPairs.splice(i, 1);
        }
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > policy.maxResponseBytes) return fail(tooLarge(`the response of ${url.origin} is larger than the ${policy.maxResponseBytes} bytes allowed`));
        chunks.push(chunk);
      });
      stream.on("error", fail);
      response.on("error", fail);
      stream.on("end", () => finish(new Uint8Array(Buffer.concat(chunks))));
    });
    if (init.body !== null) request.end(Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength));
    else request.end();
  });
}

/** A request body past `capabilities.net.maxRequestBytes`. */
export function requestTooLarge(bytes: number, maxRequestBytes: number): CapabilityError {
  return tooLarge(`the request body (${bytes} bytes) is larger than the ${maxRequestBytes} allowed`);
}

export async function safeFetch(input: FetchRequest, policy: NetPolicy, limits: FetchLimits): Promise<FetchAnswer> {
  let url = parseUrl(input.url);
  let method = input.method;
  let headers = input.headers;
  let body = input.body;
  if (body !== null && body.byteLength > policy.maxRequestBytes) throw requestTooLarge(body.byteLength, policy.maxRequestBytes);
  for (let redirects = 0; ; redirects++) {
    const entry = checkUrl(url, policy);
    limits.takeRequest();
    const hop = await requestOnce(url, entry, { method, headers, body }, policy, limits, method !== "HEAD");
    if (hop.location === undefined || input.redirect === "manual") {
      return { status: hop.status, statusText: hop.statusText, headers: hop.headers, body: hop.body, url: url.href, redirected: redirects > 0 };
    }
    if (input.redirect === "error") throw refused(`${url.origin} answered a redirect, and the request's redirect mode is "error"`);
    if (redirects >= policy.maxRedirects) throw refused(`too many redirects (more than ${policy.maxRedirects}), the last to ${hop.location.slice(0, 200)}`);
    const next = parseUrl(hop.location, url.href);
    try {
      checkUrl(next, policy);
    } catch (error) {
      throw refused(`the redirect to ${next.href.slice(0, 200)} was refused: ${(error as Error).message}`);
    }
    if (hop.status === 303 ? method !== "HEAD" : (hop.status === 301 || hop.status === 302) && method === "POST") {
      method = "GET";
      body = null;
      headers = headers.filter(([name]) => !name.toLowerCase().startsWith("content-"));
    }
    if (next.origin !== url.origin) headers = headers.filter(([name]) => !CROSS_ORIGIN_DROPPED.has(name.toLowerCase()));
    url = next;
  }
}
