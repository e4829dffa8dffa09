/**
 * @module src/capabilities/content-coding.test
 * The host's fetch decodes a response's Content-Encoding as Node's own fetch
 * does, whatever the list: every list of up to three codings drawn from the
 * ones Node knows (gzip, x-gzip, deflate, br), one it does not (identity,
 * zstd-like names), names in any case and spacing, and lists longer than
 * Node allows. A real server on 127.0.0.1 encodes the body layer by layer;
 * Node's fetch and safeFetch read the same URL, and must agree on the bytes
 * (or both fail).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { safeFetch } from "./safe-fetch.js";
import { createGrantResolver, type NetPolicy } from "./options.js";
import { CapabilityError } from "./capability-error.js";
import { startServer, type TestServer } from "./testing-server.js";

const BODY = Buffer.from("stacked codings, decoded as Node decodes them ".repeat(20));
const KNOWN = ["gzip", "x-gzip", "deflate", "br"];
const UNKNOWN = ["identity", "compress", "zstd-nope"];

/** Encodes `body` with each coding in order (the first listed is applied first). */
function encode(body: Buffer, codings: string[]): Buffer {
  let out = body;
  for (const coding of codings.map((name) => name.trim().toLowerCase())) {
    if (coding === "gzip" || coding === "x-gzip") out = gzipSync(out);
    else if (coding === "deflate") out = deflateSync(out);
    else if (coding === "br") out = brotliCompressSync(out);
  }
  return out;
}

/** Every list of one to three codings over `names`, plus spellings and over-long lists. */
function codingLists(): string[][] {
  const names = [...KNOWN, UNKNOWN[0] as string];
  const lists: string[][] = [];
  for (const a of names) {
    lists.push([a]);
    for (const b of names) {
      lists.push([a, b]);
      for (const c of KNOWN) lists.push([a, b, c]);
    }
  }
  lists.push(["GZIP", " Gzip "], ["gzip", ...UNKNOWN.slice(1)], Array(5).fill("gzip"), Array(6).fill("gzip"), ["br", "br", "deflate", "gzip", "x-gzip", "br"]);
  return lists;
}

let server: TestServer;
before(async () => {
  server = await startServer({
    "/coded": (req, res) => {
      const codings = JSON.parse(new URL(req.url ?? "/", "http://x").searchParams.get("c") ?? "[]") as string[];
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": codings.join(", ") }).end(encode(BODY, codings));
    },
  });
});
after(() => server.close());

const policy = (): NetPolicy => createGrantResolver({ net: { allow: [server.origin] } })("agent:t").net as NetPolicy;

/** Node's own reading of the URL: its bytes, or "failed". */
async function nodeReads(url: string): Promise<Buffer | "failed"> {
  try {
    return Buffer.from(await (await fetch(url)).arrayBuffer());
  } catch {
    return "failed";
  }
}

describe("Content-Encoding, decoded as Node's fetch decodes it", { timeout: 60_000 }, () => {
  it("agrees with Node on every list of codings: the same bytes, or both fail", async () => {
    const lists = codingLists();
    for (const codings of lists) {
      const url = `${server.origin}/coded?c=${encodeURIComponent(JSON.stringify(codings))}`;
      const expected = await nodeReads(url);
      const got = await safeFetch({ url, method: "GET", headers: [], body: null, redirect: "follow" }, policy(), { deadline: performance.now() + 10_000, takeRequest: () => undefined }).then(
        (answer) => Buffer.from(answer.body),
        (error: unknown) => {
          assert.ok(error instanceof CapabilityError && error.code === "failed", `${JSON.stringify(codings)}: ${String(error)}`);
          return "failed" as const;
        },
      );
      assert.deepEqual(got, expected, `Content-Encoding: ${codings.join(", ")}`);
    }
    assert.ok(lists.length > 100);
  });

  it("a decoded body's headers no longer name its encoding; an undecoded one keeps it", async () => {
    const read = async (codings: string[]) => {
      const url = `${server.origin}/coded?c=${encodeURIComponent(JSON.stringify(codings))}`;
      const answer = await safeFetch({ url, method: "GET", headers: [], body: null, redirect: "follow" }, policy(), { deadline: performance.now() + 10_000, takeRequest: () => undefined });
      return answer.headers.find(([name]) => name.toLowerCase() === "content-encoding")?.[1];
    };
    assert.equal(await read(["gzip", "gzip"]), undefined);
    assert.equal(await read(["gzip", "identity"]), "gzip, identity");
  });
});
