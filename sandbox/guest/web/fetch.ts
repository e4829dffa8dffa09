/**
 * @module sandbox/guest/web/fetch
 * The standard `fetch` global, in every isolate, backed by the host: the
 * request is made into a `Request` here (so bad input fails as in Node),
 * sent through the capability relay with its body beside it as bytes, and
 * the host's answer comes back as a `Response` over the bytes the worker
 * copied in (no copy here). A use the tool's effects do not declare is
 * refused by the host, code `undeclared`, as ctx.fs and ctx.state are. A
 * refusal rejects with a TypeError (as a network error does in Node) whose
 * message names what was refused and why, and whose `code` says the kind.
 * An aborted signal rejects with its reason; the host's request is then
 * left to finish and its answer ignored. A blob: URL is answered in the
 * isolate (./blob-url.ts).
 */
import type { CapabilityClient, Exchanged } from "../capability-client.js";
import { isBlocked, markBlocked } from "../signals.js";
import { lazyWeb } from "./lazy.js";

type FetchValue = { status: number; statusText: string; headers: [string, string][]; url: string; redirected: boolean };
type AbortLike = { aborted: boolean; reason: unknown; addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void };

export function createFetch(client: CapabilityClient) {
  return async function fetch(input: unknown, init?: Record<string, unknown>): Promise<unknown> {
    const { Request } = lazyWeb().request;
    const { responseFromHost } = lazyWeb().response;
    const request = new Request(input as string, init as never);
    const signal = request.signal as AbortLike | null;
    if (signal?.aborted === true) throw signal.reason;
    if ((request.url as string).startsWith("blob:")) return lazyWeb().blobUrl.fetchBlobUrl(request.url as string, request.method as string);
    const body = await request.bodyForFetch();
    const pending = client.exchange(
      {
        kind: "fetch",
        url: request.url,
        method: request.method,
        headers: [...request.headers],
        body: body !== null,
        redirect: request.redirect as "follow" | "error" | "manual",
      },
      body ?? undefined,
    );
    let exchanged: Exchanged;
    try {
      exchanged = await (signal === null
        ? pending
        : new Promise<Exchanged>((resolve, reject) => {
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
            pending.then(resolve, reject);
          }));
    } catch (error) {
      if (signal !== null && (signal as AbortLike).aborted && error === signal.reason) throw error;
      const refusal = error as { code?: string; message?: string };
      const failed = Object.assign(new TypeError(`fetch failed: ${refusal.message ?? String(error)}`), { code: refusal.code, cause: error });
      if (isBlocked(error)) markBlocked(failed);
      throw failed;
    }
    const value = exchanged.value as FetchValue;
    const payload = exchanged.payload;
    return responseFromHost({
      status: value.status,
      statusText: value.statusText,
      headers: value.headers,
      body: payload instanceof ArrayBuffer ? new Uint8Array(payload) : new Uint8Array(0),
      url: value.url,
      redirected: value.redirected,
    });
  };
}
