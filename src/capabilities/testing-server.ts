/**
 * @module src/capabilities/testing-server
 * A real HTTP server on 127.0.0.1 for the capability tests (and the fetch
 * plugin's): a route table of handlers, a random port, closed with its
 * sockets. Test-only.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Route = (request: http.IncomingMessage, response: http.ServerResponse, body: Buffer) => void;

export type TestServer = { port: number; origin: string; hits: string[]; close: () => Promise<void> };

export async function startServer(routes: Record<string, Route>): Promise<TestServer> {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = (request.url ?? "/").split("?")[0] as string;
      hits.push(`${request.method} ${request.url}`);
      const route = routes[path];
      if (route === undefined) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      route(request, response, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
