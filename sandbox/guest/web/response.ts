/**
 * @module sandbox/guest/web/response
 * `Response` after the Fetch standard (see ./body.ts for bodies).
 * `responseFromHost` makes the one a capability fetch answers with: type
 * "basic", the final URL, whether it was redirected.
 */
import { Body, extractBody, type BodyInit, type BodySource } from "./body.js";
import { Headers, makeImmutable, type HeadersInit } from "./headers.js";
import { intrinsics as I } from "../intrinsics.js";

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Set just before `new Response` by this module: a host's or a clone's fields; `body` is adopted as it is (no copy). */
let internal: { type: string; url: string; redirected: boolean; status?: number; body?: BodySource } | undefined;

export type ResponseInit = { status?: number; statusText?: string; headers?: HeadersInit };

export class Response extends Body {
  readonly #status: number;
  readonly #statusText: string;
  readonly #headers: Headers;
  readonly #type: string;
  readonly #url: string;
  readonly #redirected: boolean;

  constructor(body: BodyInit = null, init: ResponseInit = {}) {
    super();
    const made = internal;
    internal = undefined;
    const status = made?.status ?? (init.status === undefined ? 200 : Number(init.status));
    if (made === undefined && (!Number.isInteger(status) || status < 200 || status > 599)) {
      throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`);
    }
    const statusText = init.statusText === undefined ? "" : String(init.statusText);
    if (/[^\t\x20-\x7e\x80-\xff]/.test(statusText)) throw new TypeError("Invalid statusText");
    this.#status = status;
    this.#statusText = statusText;
    this.#headers = new Headers(init.headers);
    this.#type = made?.type ?? "default";
    this.#url = made?.url ?? "";
    this.#redirected = made?.redirected ?? false;
    const source = made?.body !== undefined ? { ...made.body, type: null } : extractBody(body);
    if ((source.bytes !== null || source.stream !== null) && NULL_BODY_STATUSES.has(status)) throw new TypeError("Response with null body status cannot have body");
    if (source.type !== null && !this.#headers.has("content-type")) this.#headers.set("content-type", source.type);
    this.setBody(source);
  }

  get status(): number {
    return this.#status;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }
  get statusText(): string {
    return this.#statusText;
  }
  get headers(): Headers {
    return this.#headers;
  }
  get type(): string {
    return this.#type;
  }
  get url(): string {
    return this.#url;
  }
  get redirected(): boolean {
    return this.#redirected;
  }

  protected override bodyContentType(): string | null {
    return this.#headers.get("content-type");
  }

  clone(): Response {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    const taken = this.takeBodySource();
    internal = { type: this.#type, url: this.#url, redirected: this.#redirected, status: this.#status, body: { bytes: taken.bytes?.slice() ?? null, stream: taken.stream } };
    return new Response(null, { statusText: this.#statusText, headers: this.#headers });
  }

  static error(): Response {
    internal = { type: "error", url: "", redirected: false, status: 0 };
    const response = new Response(null);
    makeImmutable(response.headers);
    return response;
  }
  static redirect(url: string | URL, status = 302): Response {
    const URLClass = (globalThis as { URL: typeof globalThis.URL }).URL;
    const location = new URLClass(String(url)).href;
    if (!REDIRECT_STATUSES.has(status)) throw new RangeError(`Invalid status code ${status}`);
    return new Response(null, { status, headers: { location } });
  }
  static json(data: unknown, init: ResponseInit = {}): Response {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("Value is not JSON serializable");
    const headers = new Headers(init.headers);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    return new Response(text, { ...init, headers });
  }
}
I.ObjectDefineProperty(Response.prototype, Symbol.toStringTag, { __proto__: null, value: "Response", configurable: true } as PropertyDescriptor);

/** The Response a host-performed fetch answers with. */
export function responseFromHost(fields: {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array | null;
  url: string;
  redirected: boolean;
}): Response {
  // The body is the bytes the worker copied into this isolate: adopted, not copied again.
  internal = { type: "basic", url: fields.url, redirected: fields.redirected, status: fields.status, body: { bytes: NULL_BODY_STATUSES.has(fields.status) ? null : fields.body, stream: null } };
  return new Response(null, { statusText: fields.statusText, headers: fields.headers });
}
