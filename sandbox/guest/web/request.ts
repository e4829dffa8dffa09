/**
 * @module sandbox/guest/web/request
 * `Request` after the Fetch standard (see ./body.ts for bodies). Its URL must
 * be absolute: a tool has no document to resolve against.
 */
import { Body, extractBody, type BodyInit, type BodySource } from "./body.js";
import { Headers, type HeadersInit } from "./headers.js";
import { intrinsics as I } from "../intrinsics.js";

const NORMALISED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"]);
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** True while clone() makes its copy (the constructor then copies the body instead of taking it). */
let cloning = false;

export type RequestInit = {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit;
  redirect?: "follow" | "error" | "manual";
  signal?: unknown;
  duplex?: "half";
};

function normaliseMethod(method: unknown): string {
  const text = String(method);
  if (!TOKEN.test(text)) throw new TypeError(`'${text}' is not a valid HTTP method.`);
  const upper = text.toUpperCase();
  if (FORBIDDEN_METHODS.has(upper)) throw new TypeError(`'${text}' HTTP method is unsupported.`);
  // The standard upper-cases only the well-known methods (PATCH stays as written).
  return NORMALISED_METHODS.has(upper) && upper !== "PATCH" ? upper : text;
}

export class Request extends Body {
  readonly #url: string;
  readonly #method: string;
  readonly #headers: Headers;
  readonly #redirect: string;
  readonly #signal: unknown;

  constructor(input: string | URL | Request, init: RequestInit = {}) {
    super();
    const source = input instanceof Request ? input : undefined;
    const URLClass = (globalThis as { URL: typeof globalThis.URL }).URL;
    let url: string;
    try {
      url = source?.url ?? new URLClass(String(input)).href;
    } catch {
      throw new TypeError(`Failed to parse URL from ${String(input)}`);
    }
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)) throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url}`);
    this.#url = url;
    this.#method = init.method === undefined ? (source?.method ?? "GET") : normaliseMethod(init.method);
    this.#headers = new Headers(init.headers ?? source?.headers);
    const redirect = init.redirect ?? source?.redirect ?? "follow";
    if (redirect !== "follow" && redirect !== "error" && redirect !== "manual") throw new TypeError(`Invalid redirect mode: ${String(redirect)}`);
    this.#redirect = redirect;
    this.#signal = init.signal ?? source?.signal ?? null;
    let body: BodySource = { bytes: null, stream: null };
    if (init.body !== undefined && init.body !== null) {
      if (this.#method === "GET" || this.#method === "HEAD") throw new TypeError("Request with GET/HEAD method cannot have body.");
      const extracted = extractBody(init.body);
      if (extracted.stream !== null && init.duplex !== "half") throw new TypeError("RequestInit: duplex option is required when sending a body.");
      body = extracted;
      if (extracted.type !== null && !this.#headers.has("content-type")) this.#headers.set("content-type", extracted.type);
    } else if (source !== undefined) {
      if (source.bodyUsed) throw new TypeError("Cannot construct a Request with a Request object that has already been used.");
      // A clone's body is a copy (a stream is teed); any other Request made from this one takes its body (the Fetch standard).
      if (cloning) {
        const taken = source.takeBodySource();
        body = { bytes: taken.bytes?.slice() ?? null, stream: taken.stream };
      } else body = source.transferBodySource();
    }
    this.setBody(body);
  }

  get url(): string {
    return this.#url;
  }
  get method(): string {
    return this.#method;
  }
  get headers(): Headers {
    return this.#headers;
  }
  get redirect(): string {
    return this.#redirect;
  }
  get signal(): unknown {
    return this.#signal;
  }
  /** Fetch: always "half" (a request's body is sent before its response is read); a Request used as another's init passes it on. */
  get duplex(): string {
    return "half";
  }
  /** The body's bytes without consuming it (fetch sends them to the host); a stream body is read to its end. */
  async bodyForFetch(): Promise<Uint8Array | null> {
    const bytes = super.bodyBytes();
    if (bytes !== null || this.body === null) return bytes;
    return this.bytes();
  }
  override takeBodySource(): BodySource {
    return super.takeBodySource();
  }
  override transferBodySource(): BodySource {
    return super.transferBodySource();
  }
  protected override bodyContentType(): string | null {
    return this.#headers.get("content-type");
  }
  clone(): Request {
    if (this.bodyUsed) throw new TypeError("Request.clone: Body has already been consumed.");
    cloning = true;
    try {
      return new Request(this);
    } finally {
      cloning = false;
    }
  }
}
I.ObjectDefineProperty(Request.prototype, Symbol.toStringTag, { __proto__: null, value: "Request", configurable: true } as PropertyDescriptor);
