// `node --no-node-snapshot scripts/bench/runtime-cost.mjs [dist]`: what the
// web runtime costs a tool. One host, one worker; for each tool below, its
// first call after load, its warm call (median of many, sequential) and its
// isolate's heap after a warm call (metrics.heapBytes). "plain" touches no
// web global: its figures must not move when the runtime grows. The others
// each touch one lazily installed part (streams, Blob, URL, crypto, a legacy
// encoding) once a call. Pass another build's dist/ to compare (the bench
// then imports that build's corral). Prints one JSON line and a table.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dist = resolve(process.argv[2] ?? new URL("../../dist/", import.meta.url).pathname);
const corral = await import(pathToFileURL(join(dist, "src/index.js")).href);
const WARM_CALLS = Number(process.env.RUNTIME_BENCH_CALLS ?? 1500);

const tool = (name, body) => `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({ name: ${JSON.stringify(name)}, description: "bench", input: z.object({ text: z.string() }), effects: [],
  async run({ text }) { ${body} } });
`;

const TOOLS = {
  plain: 'return { words: text.split(" ").length };',
  streams: 'const s = new ReadableStream({ start(c) { c.enqueue(text); c.close(); } }); let n = 0; for await (const x of s) n += x.length; return { n };',
  response_text: 'return { n: (await new Response(text).text()).length };',
  blob: 'return { n: (await new Blob([text]).text()).length };',
  url: 'return { n: new URL("https://a.b/" + text.length).pathname.length };',
  digest: 'return { n: (await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).byteLength };',
  hmac: 'const k = await crypto.subtle.importKey("raw", new TextEncoder().encode("k"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]); return { n: (await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(text))).byteLength };',
  legacy_decode: 'return { n: new TextDecoder("shift_jis").decode(new TextEncoder().encode(text)).length };',
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const dir = mkdtempSync(join(tmpdir(), "corral-runtime-bench-"));
const host = corral.createHost({ workers: 1, cacheDir: join(dir, "cache"), ledger: { store: join(dir, "ledger.db") } });
const input = { text: "the quick brown fox jumps over the lazy dog" };
const rows = {};
try {
  for (const [name, body] of Object.entries(TOOLS)) {
    const loaded = await host.load({ source: `agent:bench-${name}`, code: tool(name, body) });
    if (!loaded.ok) throw new Error(`${name}: ${JSON.stringify(loaded.error)}`);
    let started = performance.now();
    const first = await host.call(name, input);
    const firstMs = performance.now() - started;
    // An older build may lack the part a tool touches: its row says so.
    if (!first.ok) {
      rows[name] = { missing: first.error.message.slice(0, 80) };
      continue;
    }
    const times = [];
    let heapBytes = 0;
    for (let i = 0; i < WARM_CALLS; i++) {
      started = performance.now();
      const result = await host.call(name, input);
      times.push(performance.now() - started);
      heapBytes = result.metrics?.heapBytes ?? 0;
    }
    rows[name] = { firstCallMs: +firstMs.toFixed(2), warmCallUs: Math.round(median(times) * 1000), heapKb: Math.round(heapBytes / 1024) };
  }
} finally {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ dist, rows })}\n`);
for (const [name, row] of Object.entries(rows)) if (row.missing !== undefined) console.error(`${name.padEnd(14)} ${row.missing}`); else console.error(`${name.padEnd(14)} first ${String(row.firstCallMs).padStart(7)} ms  warm ${String(row.warmCallUs).padStart(5)} µs  heap ${String(row.heapKb).padStart(6)} KiB`);
