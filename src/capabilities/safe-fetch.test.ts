/**
 * @module src/capabilities/safe-fetch.test
 * The host's fetch against a real server on 127.0.0.1: what the allow-list
 * admits works; every escape (other origins, redirects, private addresses
 * reached through a name, credentials, other schemes, oversize and endless
 * bodies, loops, a budget of requests, the deadline) is refused with the
 * right code and a message naming the target.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { safeFetch, type FetchRequest, type FetchLimits } from "./safe-fetch.js";
import { createGrantResolver, type NetPolicy } from "./options.js";
import { CapabilityError } from "./capability-error.js";
import { startServer, type TestServer } from "./testing-server.js";

let server: TestServer;

before(async () => {
  server = await startServer({
    "/hello": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-a": "1" }).end("héllo"),
    "/echo": (req, res, body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, body: body.toString(), auth: req.headers.authorization ?? null })),
    "/gzip": (_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("squeezed")),
    "/to-hello": (_req, res) => res.writeHead(302, { location: "/hello" }).end(),
    "/see-other": (_req, res) => res.writeHead(303, { location: "/echo" }).end(),
    "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
    "/to-other-host": (_req, res) => res.writeHead(302, { location: "http://example.org/" }).end(),
    "/to-metadata": (_req, res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
    "/forever": (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 97);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    },
    "/huge-length": (_req, res) => {
      res.writeHead(200, { "content-length": String(10 * 1024 ** 3) });
      res.write("a little");
    },
    "/never": () => undefined,
  });
});
after(() => server.close());

function policy(allow: string[], extra: Partial<NetPolicy> = {}): NetPolicy {
  const net = createGrantResolver({ net: { allow } })("agent:t").net as NetPolicy;
  return { ...net, ...extra };
}

function limits(extra: Partial<FetchLimits> = {}): FetchLimits {
  return { deadline: performance.now() + 10_000, takeRequest: () => undefined, ...extra };
}

const get = (url: string, extra: Partial<FetchRequest> = {}): FetchRequest => ({ url, method: "GET", headers: [], body: null, redirect: "follow", ...extra });

async function refusal(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof CapabilityError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("safeFetch", { timeout: 60_000 }, () => {
  it("fetches an allowed origin: status, headers, body", async () => {
    const answer = await safeFetch(get(`${server.origin}/hello`), policy([server.origin]), limits());
    assert.equal(answer.status, 200);
    assert.equal(Buffer.from(answer.body).toString(), "héllo");
    assert.ok(answer.headers.some(([name, value]) => name.toLowerCase() === "x-a" && value === "1"));
    assert.equal(answer.redirected, false);
  });

  it("sends a body and decodes gzip", async () => {
    const echo = await safeFetch(get(`${server.origin}/echo`, { method: "POST", body: new TextEncoder().encode("payload") }), policy([server.origin]), limits());
    assert.deepEqual(JSON.parse(Buffer.from(echo.body).toString()), { method: "POST", body: "payload", auth: null });
    const zipped = await safeFetch(get(`${server.origin}/gzip`), policy([server.origin]), limits());
    assert.equal(Buffer.from(zipped.body).toString(), "squeezed");
  });

  it("follows a redirect within the allow-list; 303 turns a POST into a GET", async () => {
    const answer = await safeFetch(get(`${server.origin}/to-hello`), policy([server.origin]), limits());
    assert.equal(answer.redirected, true);
    assert.equal(answer.url, `${server.origin}/hello`);
    const seeOther = await safeFetch(get(`${server.origin}/see-other`, { method: "POST", body: new Uint8Array([1]) }), policy([server.origin]), limits());
    assert.equal(JSON.parse(Buffer.from(seeOther.body).toString()).method, "GET");
  });

  it("refuses an origin off the allow-list, another port, another scheme", async () => {
    await refusal(safeFetch(get(`${server.origin}/hello`), policy([]), limits()), "refused", /not on this source's net allow-list/);
    await refusal(safeFetch(get(`http://127.0.0.1:${server.port + 1}/`), policy([server.origin]), limits()), "refused", /allow-list/);
    await refusal(safeFetch(get(`https://127.0.0.1:${server.port}/`), policy([server.origin]), limits()), "refused", /allow-list/);
  });

  it("refuses credentials, file: and data: URLs", async () => {
    await refusal(safeFetch(get(`http://user:pw@127.0.0.1:${server.port}/hello`), policy([server.origin]), limits()), "refused", /credentials/);
    await refusal(safeFetch(get("file:///etc/passwd"), policy([server.origin]), limits()), "refused", /file: URLs are never fetched/);
    await refusal(safeFetch(get("data:text/plain,hi"), policy([server.origin]), limits()), "refused", /data: URLs are never fetched/);
  });

  it("refuses a name that resolves to a private address (DNS rebinding), unless the entry names the address", async () => {
    const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    await refusal(safeFetch(get(`http://rebind.test:${server.port}/hello`), policy([`http://rebind.test:${server.port}`]), limits({ resolve })), "refused", /resolves to a refused address: 127\.0\.0\.1 is a loopback address/);
    const mapped = async () => [{ address: "::ffff:127.0.0.1", family: 6 }];
    await refusal(safeFetch(get(`http://rebind.test:${server.port}/hello`), policy([`http://rebind.test:${server.port}`]), limits({ resolve: mapped })), "refused", /loopback/);
    const listed = await safeFetch(get(`http://localhost:${server.port}/hello`), policy([`http://localhost:${server.port}`]), limits({ resolve }));
    assert.equal(listed.status, 200);
  });

  it("judges decimal and IPv6-mapped forms as the address they are", async () => {
    const answer = await safeFetch(get(`http://2130706433:${server.port}/hello`), policy([server.origin]), limits());
    assert.equal(answer.status, 200);
    await refusal(safeFetch(get(`http://[::ffff:7f00:1]:${server.port}/hello`), policy([server.origin]), limits()), "refused", /\[::ffff:7f00:1\].*allow-list/);
  });

  it("refuses a redirect to a host off the list and to the metadata address, naming the target", async () => {
    await refusal(safeFetch(get(`${server.origin}/to-other-host`), policy([server.origin]), limits()), "refused", /redirect to http:\/\/example\.org\/ was refused/);
    await refusal(safeFetch(get(`${server.origin}/to-metadata`), policy([server.origin]), limits()), "refused", /redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/ was refused/);
  });

  it("refuses a redirect loop, and redirects when the mode is error", async () => {
    await refusal(safeFetch(get(`${server.origin}/loop`), policy([server.origin]), limits()), "refused", /too many redirects/);
    await refusal(safeFetch(get(`${server.origin}/to-hello`, { redirect: "error" }), policy([server.origin]), limits()), "refused", /redirect mode is "error"/);
    const manual = await safeFetch(get(`${server.origin}/to-hello`, { redirect: "manual" }), policy([server.origin]), limits());
    assert.equal(manual.status, 302);
  });

  it("caps bodies: an endless stream, a 10 GB Content-Length, a large request", async () => {
    await refusal(safeFetch(get(`${server.origin}/forever`), policy([server.origin], { maxResponseBytes: 1024 * 1024 }), limits()), "too_large", /larger than the 1048576 bytes allowed/);
    await refusal(safeFetch(get(`${server.origin}/huge-length`), policy([server.origin]), limits()), "too_large", /declares 10737418240 bytes/);
    await refusal(safeFetch(get(`${server.origin}/echo`, { method: "POST", body: new Uint8Array(2048) }), policy([server.origin], { maxRequestBytes: 1024 }), limits()), "too_large", /request body/);
  });

  it("stops at the call's deadline and at its budget of requests", async () => {
    await refusal(safeFetch(get(`${server.origin}/never`), policy([server.origin]), limits({ deadline: performance.now() + 200 })), "timeout", /ran out of the call's time/);
    let left = 2;
    const takeRequest = () => {
      if (left-- <= 0) throw new CapabilityError("refused", "this call made its 2 requests");
    };
    await refusal(safeFetch(get(`${server.origin}/loop`), policy([server.origin]), limits({ takeRequest })), "refused", /made its 2 requests/);
  });
});
