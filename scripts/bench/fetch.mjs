// What a tool's `fetch` costs over Node's own: one warm host whose tool
// fetches a small page from a server on 127.0.0.1 (net_read allowed, the
// origin on its allow-list), against Node's fetch of the same page from the
// bench process, and the same host's tool that does not fetch (what a call
// costs without the capability). Interleaved rounds, one call in flight.
import { createServer } from "node:http";
import { measureWarm } from "./latency.mjs";
import { callOk, createBenchHost, loadOk, warmUp } from "./contenders.mjs";
import { corralWorkerPids } from "./processes.mjs";

const PAGE = "<title>bench</title><p>hello</p>";

const tool = (name, body) => `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "bench tool",
  input: z.object({ url: z.string() }),
  effects: ["net_read"],
  async run({ url }) { ${body} },
});`;

export async function measureFetch(tempDir, { rounds, n, log }) {
  const server = createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/page`;
  const before = corralWorkerPids();
  const host = createBenchHost(tempDir, {
    effects: { agent: { net_read: "allow" } },
    capabilities: { net: { allow: [new URL(url).origin] } },
  });
  try {
    await loadOk(host, { source: "agent:bench-fetch", code: tool("bench_fetch", "const r = await fetch(url); return (await r.text()).length;") });
    await loadOk(host, { source: "agent:bench-nofetch", code: tool("bench_nofetch", "return url.length;") });
    await warmUp(host, "bench_fetch", { url });
    await warmUp(host, "bench_nofetch", { url });
    const pids = corralWorkerPids().filter((pid) => !before.includes(pid));
    const fetched = await callOk(host, "bench_fetch", { url });
    if (fetched.structured !== PAGE.length) throw new Error(`bench: the fetching tool answered ${fetched.output}`);
    return await measureWarm(
      [
        { name: "nodeFetch", kind: "async", call: async () => (await fetch(url)).text(), n },
        { name: "corralNoFetch", kind: "async", call: () => callOk(host, "bench_nofetch", { url }), n, pids },
        { name: "corralFetch", kind: "async", call: () => callOk(host, "bench_fetch", { url }), n, pids },
      ],
      { rounds, log },
    );
  } finally {
    await host.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
