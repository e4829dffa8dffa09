/**
 * @module plugins/fetch-page/fetch-page.test
 * fetch_page through a real host against a real server on 127.0.0.1: the
 * title, links and text of a page; plain text; a failed status; an origin
 * the host does not allow.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Host, ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";
import { startServer, type TestServer } from "../../src/capabilities/testing-server.js";

const PLUGIN = fileURLToPath(new URL("../../../plugins/fetch-page", import.meta.url));
const PAGE = `<!doctype html><html><head><title>Tom &amp; Jerry</title><script>var x = "<a href='/no'>no</a>";</script></head>
<body><h1>Cartoons</h1><p>A cat&nbsp;and a mouse.</p><!-- <a href="/hidden">hidden</a> -->
<a href="/one">One</a> <a href='two?x=1'>Two <b>bold</b></a> <a href=https://example.com/three>Three</a> <a href="javascript:alert(1)">js</a> <a href="/one">One again</a></body></html>`;

let server: TestServer;
before(async () => {
  server = await startServer({
    "/page": (_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE),
    "/plain": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("just text"),
    "/gone": (_req, res) => res.writeHead(410, "Gone").end(),
  });
});
after(() => server.close());

async function withTool(fn: (call: (input: unknown) => Promise<ToolResult>) => Promise<void>): Promise<void> {
  await withHost(
    async (host: Host) => {
      const loaded = await host.load({ path: PLUGIN });
      assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
      await fn((input) => host.call("fetch_page", input));
    },
    { effects: { plugin: { net_read: "allow" } }, capabilities: { net: { allow: [server.origin] } } },
  );
}

describe("fetch_page plugin", { timeout: 60_000 }, () => {
  it("answers a page's title, links and visible text", async () => {
    await withTool(async (call) => {
      const result = await call({ url: `${server.origin}/page` });
      assert.ok(result.ok, JSON.stringify(result));
      const page = result.structured as { title: string; links: { href: string; text: string }[]; text: string; status: number };
      assert.equal(page.status, 200);
      assert.equal(page.title, "Tom & Jerry");
      assert.deepEqual(page.links, [
        { href: `${server.origin}/one`, text: "One" },
        { href: `${server.origin}/two?x=1`, text: "Two bold" },
        { href: "https://example.com/three", text: "Three" },
      ]);
      assert.match(page.text, /^Cartoons\nA cat and a mouse\.\nOne Two bold Three js One again$/);
      assert.match(result.output, /^Tom & Jerry \(http:\/\/127\.0\.0\.1:\d+\/page\)/);
    });
  });

  it("answers plain text as text, and a failed status as an error", async () => {
    await withTool(async (call) => {
      const plain = await call({ url: `${server.origin}/plain` });
      assert.ok(plain.ok);
      assert.equal((plain.structured as { text: string }).text, "just text");
      const gone = await call({ url: `${server.origin}/gone` });
      assert.equal(gone.ok, false);
      assert.match(gone.ok ? "" : gone.error.message, /answered 410 Gone/);
    });
  });

  it("cannot reach what the host does not allow", async () => {
    await withTool(async (call) => {
      const refused = await call({ url: "http://169.254.169.254/latest/meta-data/" });
      assert.equal(refused.ok, false);
      assert.match(refused.ok ? "" : refused.error.message, /not on this source's net allow-list/);
      const invalid = await call({ url: "not a url" });
      assert.equal(invalid.ok ? "" : invalid.error.kind, "invalid_input");
    });
  });
});
