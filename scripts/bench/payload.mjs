// What a capability payload costs the tool's isolate: for fetch (a response
// read, a request body sent), ctx.fs (a file read, a file written) and
// ctx.state (a value set, a value read) at 1, 5 and 10 MiB, the isolate's
// heap after the call (used plus external, as the worker reads it into the
// call's metrics) over the same tool's with a 2-byte payload, per payload
// byte. Every call runs in a fresh isolate (isolation: "call"), so the figure
// is what that one call allocated and had not yet collected: an upper bound
// of what the payload needed at its peak. The caps are raised past 10 MiB and the tools get 1 GB, so the
// figure is what corral's channel costs, not whether it fits the default.
// Then the question the ledger cares about: at the default limits (64 MB,
// the documented caps), does an honest tool reach each cap without a strike?
//
//   node --no-node-snapshot scripts/bench/payload.mjs [--quick]
import { createServer } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBenchHost } from "./contenders.mjs";
import { median } from "./harness.mjs";
import { importCorral } from "./dist.mjs";

const MiB = 1024 * 1024;
export const PAYLOAD_SIZES_MIB = [1, 5, 10];

const tool = (name, effects, body, memoryMb) => `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "payload bench tool",
  input: z.object({ n: z.number(), url: z.string() }),
  effects: ${JSON.stringify(effects)},
  limits: { memoryMb: ${memoryMb}, timeoutMs: 60000 },
  async run({ n, url }, ctx) { ${body} },
});`;

/** Each case: what the tool does with a payload of n bytes, and what it answers (n, checked). */
export const PAYLOAD_CASES = [
  { name: "fetch_response", effects: ["net_read"], body: "return (await (await fetch(url + '?n=' + n)).text()).length;" },
  { name: "fetch_request", effects: ["net_write"], body: "const r = await fetch(url, { method: 'POST', body: 'x'.repeat(n) }); return Number(await r.text());" },
  { name: "fs_read", effects: ["read"], body: "return (await ctx.fs.readFile('p' + n, 'utf8')).length;" },
  { name: "fs_write", effects: ["fs_write"], body: "await ctx.fs.writeFile('w' + n, 'x'.repeat(n)); return n;" },
  { name: "state_set", effects: ["state_write"], body: "await ctx.state.set('k' + n, 'x'.repeat(n - 2)); return n;" },
  { name: "state_get", effects: ["read"], body: "return (await ctx.state.get('k' + n)).length + 2;" },
];

export async function startPayloadServer() {
  const server = createServer((request, response) => {
    const n = Number(new URL(request.url ?? "/", "http://x").searchParams.get("n") ?? 0);
    let received = 0;
    request.on("data", (chunk) => (received += chunk.length));
    request.on("end", () => {
      if (request.method === "POST") response.writeHead(200, { "content-type": "text/plain" }).end(String(received));
      else response.writeHead(200, { "content-type": "text/plain" }).end(Buffer.alloc(n, 0x78));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/p`, close: () => new Promise((resolve) => server.close(resolve)) };
}

export async function measurePayloads(tempDir, { sizesMib = PAYLOAD_SIZES_MIB, repeats = 3, memoryMb = 1024, log = () => {} } = {}) {
  const server = await startPayloadServer();
  const workspace = join(tempDir, `payload-ws-${process.pid}`);
  mkdirSync(workspace, { recursive: true });
  const bytes = [2, ...sizesMib.map((mib) => mib * MiB)];
  for (const n of bytes) writeFileSync(join(workspace, `p${n}`), Buffer.alloc(n, 0x78));
  const cap = 64 * MiB;
  const store = new (await importCorral()).MemoryCapabilityStore();
  // state_get reads what the host put there: its call pays for the read alone.
  for (const n of bytes) await store.stateSet("agent:payload-state_get", `k${n}`, JSON.stringify("x".repeat(n - 2)), { quotaBytes: 4 * cap, maxKeys: 100 });
  const host = createBenchHost(tempDir, {
    workers: 1,
    // A fresh isolate per call: what one call left uncollected is never counted in the next.
    isolation: "call",
    maxMemoryMb: 2048,
    maxTimeoutMs: 120_000,
    effects: { agent: { net_read: "allow", net_write: "allow", read: "allow", fs_write: "allow", state_write: "allow" } },
    capabilities: {
      net: { allow: [new URL(server.url).origin], maxResponseBytes: cap, maxRequestBytes: cap },
      fs: { root: workspace, maxFileBytes: cap },
      state: { quotaBytes: 4 * cap, maxKeys: 100 },
      store,
    },
  });
  const rows = [];
  try {
    for (const c of PAYLOAD_CASES) {
      const loaded = await host.load({ source: `agent:payload-${c.name}`, code: tool(c.name, c.effects, c.body, memoryMb) });
      if (!loaded.ok) throw new Error(`bench: ${c.name}: ${loaded.error.message}`);
    }
    for (const c of PAYLOAD_CASES) {
      const heapOf = async (n) => {
        const samples = [];
        for (let i = 0; i < repeats; i++) {
          const result = await host.call(c.name, { n, url: server.url });
          if (!result.ok || result.structured !== n) throw new Error(`bench: ${c.name} at ${n} bytes: ${JSON.stringify(result.ok ? result.structured : result.error)}`);
          samples.push(result.metrics.heapBytes);
        }
        return median(samples);
      };
      const base = await heapOf(2);
      const row = { name: c.name, baseHeapBytes: base, perByte: {} };
      for (const mib of sizesMib) {
        const heap = await heapOf(mib * MiB);
        row.perByte[mib] = (heap - base) / (mib * MiB);
      }
      log(`payload ${c.name}: ${sizesMib.map((mib) => `${mib} MiB ${row.perByte[mib].toFixed(2)} B/B`).join(", ")}`);
      rows.push(row);
    }
  } finally {
    await host.close();
    await server.close();
  }
  return rows;
}

/** The rows as a markdown table. */
export function payloadTable(rows, sizesMib = PAYLOAD_SIZES_MIB) {
  const head = `| payload | ${sizesMib.map((mib) => `${mib} MiB`).join(" | ")} |\n|---|${sizesMib.map(() => "---:").join("|")}|`;
  return [head, ...rows.map((row) => `| ${row.name} | ${sizesMib.map((mib) => row.perByte[mib].toFixed(2)).join(" | ")} |`)].join("\n");
}

/** The section of docs/benchmarks.md. */
export function payloadSection(rows) {
  return `## Capability payloads: isolate heap per payload byte

What a payload of N bytes costs the tool's isolate (scripts/bench/payload.mjs): the isolate's heap after the call (used plus external, as the worker reads it into the call's metrics, no collection forced; each call in a fresh isolate, \`isolation: "call"\`, so nothing an earlier call left is counted) less the same tool's with a 2-byte payload, over N. Each tool makes or reads the payload as an honest tool would (\`'x'.repeat(n)\` for a body, a file or a state value; \`text()\` or \`readFile(path, "utf8")\` for what comes back), so the figure holds the tool's own string beside corral's copy: about 2 is the floor for a payload made from, or made into, a string. Caps raised past 10 MiB and 1 GB isolates for the measure; at the default limits every documented cap is reached without a strike (test/capabilities/payload-caps.test.ts). Each figure: the median of 3 calls (1 with \`--quick\`).

${payloadTable(rows)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "corral-payload-bench-"));
  try {
    const quick = process.argv.includes("--quick");
    const rows = await measurePayloads(dir, { repeats: quick ? 1 : 3, log: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(`${payloadTable(rows)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
