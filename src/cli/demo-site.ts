/**
 * @module src/cli/demo-site
 * A small web site the demo serves on 127.0.0.1 (a random port) for the
 * bundled `fetch_page` plugin to read: the host's net allow-list names this
 * origin and nothing else, so the demo also shows a refused fetch.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const PAGE = `<!doctype html><html><head><title>corral demo site</title><style>body{font:16px serif}</style></head>
<body><h1>Welcome</h1><p>This page is served on 127.0.0.1 by <code>corral demo</code>; fetch_page reads it through the host.</p>
<ul><li><a href="/about">About</a></li><li><a href="https://example.com/">Elsewhere</a></li></ul><script>tracking()</script></body></html>`;

export type DemoSite = { origin: string; close: () => Promise<void> };

export async function startDemoSite(): Promise<DemoSite> {
  const server = http.createServer((request, response) => {
    if (request.url === "/" || request.url === "/about") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
