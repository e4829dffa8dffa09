/**
 * @module test/fuzz/payloads
 * The payload campaign: a fast-check generator of capability payload sizes
 * around each cap, and the run that checks what corral promises of them. A
 * case is a path (a fetch's response or request body, a file read or
 * written, a state value), a grant profile (the default caps, or smaller
 * ones), a size a few bytes, a KiB or a factor away from that profile's cap,
 * how the tool handles the payload (text or bytes, a string or a typed
 * array, base64), and whether it catches the refusal. At the default memory
 * limit, for every case:
 *
 *  - a payload within its cap arrives whole (the tool answers its size);
 *  - one past it is refused `too_large` (caught: the code; uncaught: a
 *    tool_error naming it), never a memory, timeout or crash;
 *  - no source of the campaign has a strike in the ledger at the end.
 *
 * Case i comes from seed `seed + i` (replay one with `--count 1`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { createHost, type Host } from "../../src/index.js";
import { CAPABILITY_DEFAULTS, type CapabilityGrant } from "../../src/capabilities/options.js";
import { startServer, type TestServer } from "../../src/capabilities/testing-server.js";
import { toolSource } from "../helpers/host.js";

export const PAYLOAD_PATHS = ["response", "request", "file_read", "file_write", "state_value"] as const;
export type PayloadPath = (typeof PAYLOAD_PATHS)[number];

type Caps = { maxResponseBytes: number; maxRequestBytes: number; maxFileBytes: number; quotaBytes: number };
/** Grant profiles: the documented defaults, and smaller caps of every shape. */
export const PROFILES: Caps[] = [
  { maxResponseBytes: CAPABILITY_DEFAULTS.maxResponseBytes, maxRequestBytes: CAPABILITY_DEFAULTS.maxRequestBytes, maxFileBytes: CAPABILITY_DEFAULTS.maxFileBytes, quotaBytes: CAPABILITY_DEFAULTS.quotaBytes },
  { maxResponseBytes: 4096, maxRequestBytes: 4096, maxFileBytes: 4096, quotaBytes: 4096 },
  { maxResponseBytes: 700_001, maxRequestBytes: 1000, maxFileBytes: 3 * 1024 * 1024 + 7, quotaBytes: 200_003 },
];

/** The payload size a path's cap admits exactly (a state value: the quota less the key "k"). */
export function capOf(caps: Caps, path: PayloadPath): number {
  if (path === "response") return caps.maxResponseBytes;
  if (path === "request") return caps.maxRequestBytes;
  if (path === "state_value") return caps.quotaBytes - 1;
  return caps.maxFileBytes;
}

export type PayloadCase = { path: PayloadPath; profile: number; delta: number | "half" | "double"; mode: number; uncaught: boolean };

export const payloadCaseArbitrary: fc.Arbitrary<PayloadCase> = fc.record({
  path: fc.constantFrom(...PAYLOAD_PATHS),
  profile: fc.integer({ min: 0, max: PROFILES.length - 1 }),
  delta: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(-1024, 1024, "half" as const, "double" as const)),
  mode: fc.integer({ min: 0, max: 2 }),
  uncaught: fc.boolean(),
});

export function sizeOf(c: PayloadCase): number {
  const cap = capOf(PROFILES[c.profile] as Caps, c.path);
  const size = c.delta === "half" ? Math.floor(cap / 2) : c.delta === "double" ? cap * 2 : cap + c.delta;
  return Math.max(3, size);
}

/** What each path's tool does with `n` bytes in `mode`, answering the size it saw. */
const BODIES: Record<PayloadPath, string[]> = {
  response: [
    "return (await (await fetch(url + '/bytes?n=' + n)).text()).length;",
    "return (await (await fetch(url + '/bytes?n=' + n + '&stream=1')).arrayBuffer()).byteLength;",
    "return (await (await fetch(url + '/bytes?n=' + n)).bytes()).length;",
  ],
  request: [
    "return Number(await (await fetch(url + '/length', { method: 'POST', body: 'x'.repeat(n) })).text());",
    "return Number(await (await fetch(url + '/length', { method: 'PUT', body: new Uint8Array(n) })).text());",
    "return Number(await (await fetch(url + '/length', { method: 'POST', body: new Uint8Array(n).buffer })).text());",
  ],
  file_read: [
    "return (await ctx.fs.readFile('f' + n, 'utf8')).length;",
    "return (await ctx.fs.readFile('f' + n)).length;",
    "const b = await ctx.fs.readFile('f' + n, 'base64'); return (b.length / 4) * 3 - (b.endsWith('==') ? 2 : b.endsWith('=') ? 1 : 0);",
  ],
  file_write: [
    "await ctx.fs.writeFile('w', 'x'.repeat(n)); return n;",
    "await ctx.fs.writeFile('w', new Uint8Array(n)); return n;",
    "await ctx.fs.writeFile('w', 'x'.repeat(n), 'latin1'); return n;",
  ],
  state_value: Array(3).fill("await ctx.state.set('k', 'x'.repeat(n - 2)); return (await ctx.state.get('k')).length + 2;"),
};
const EFFECTS: Record<PayloadPath, string[]> = { response: ["net_read"], request: ["net_write"], file_read: ["read"], file_write: ["fs_write"], state_value: ["state_write"] };

const toolName = (path: PayloadPath, profile: number, mode: number) => `${path}_${profile}_${mode}`;
const sourceOf = (profile: number, path: PayloadPath) => `agent:payload-${profile}-${path}`;

/** A host whose sources have each profile's grant, with a tool per path, profile and mode. */
export type PayloadRig = { host: Host; server: TestServer; workspace: string; close(): Promise<void> };

export async function openPayloadRig(dir: string): Promise<PayloadRig> {
  const server = await startServer({
    "/bytes": (req, res) => {
      const query = new URL(req.url ?? "/", "http://x").searchParams;
      const body = Buffer.alloc(Number(query.get("n")), 0x61);
      if (query.get("stream") === "1") {
        res.writeHead(200);
        for (let at = 0; at < body.length; at += 65536) res.write(body.subarray(at, at + 65536));
        res.end();
      } else res.writeHead(200, { "content-length": String(body.length) }).end(body);
    },
    "/length": (_req, res, body) => res.writeHead(200).end(String(body.length)),
  });
  const workspace = join(dir, "payload-ws");
  mkdirSync(workspace, { recursive: true });
  const sources: Record<string, CapabilityGrant> = {};
  PROFILES.forEach((caps, profile) => {
    for (const path of PAYLOAD_PATHS) {
      sources[sourceOf(profile, path)] = {
        net: { allow: [server.origin], maxResponseBytes: caps.maxResponseBytes, maxRequestBytes: caps.maxRequestBytes },
        fs: { root: workspace, maxFileBytes: caps.maxFileBytes },
        state: { quotaBytes: caps.quotaBytes },
      };
    }
  });
  const host = createHost({
    workers: 1,
    cacheDir: false,
    ledger: { store: false },
    effects: { agent: { net_read: "allow", net_write: "allow", read: "allow", fs_write: "allow", state_write: "allow" } },
    capabilities: { sources },
  });
  for (let profile = 0; profile < PROFILES.length; profile++) {
    for (const path of PAYLOAD_PATHS) {
      // One module per source, its modes as named exports (a source's next load would replace the last).
      const tools = BODIES[path].map((body, mode) => tool(toolName(path, profile, mode), EFFECTS[path], body).replace("export default ", `export const t${mode} = `));
      const code = [tools[0], ...tools.slice(1).map((text) => text.replace(IMPORTS, ""))].join("\n");
      const loaded = await host.load({ source: sourceOf(profile, path), code });
      if (!loaded.ok) throw new Error(`the payload rig did not load: ${JSON.stringify(loaded)}`);
    }
  }
  return {
    host,
    server,
    workspace,
    async close() {
      await host.close();
      await server.close();
    },
  };
}

const tool = (name: string, effects: string[], body: string) =>
  toolSource({
    name,
    effects,
    input: "z.object({ n: z.number(), url: z.string(), uncaught: z.boolean() })",
    run: `const { n, url } = input;
    try { return { ok: true, length: await (async () => { ${body} })() }; }
    catch (error) { if (input.uncaught) throw error; return { ok: false, code: error.code, message: String(error.message) }; }`,
  });
const IMPORTS = /import \{ defineTool \} from "corral";\nimport \{ z \} from "zod";\n/;

/** Runs one case; answers why it broke a promise, or null. */
export async function runPayloadCase(rig: PayloadRig, c: PayloadCase): Promise<string | null> {
  const n = sizeOf(c);
  const cap = capOf(PROFILES[c.profile] as Caps, c.path);
  if (c.path === "file_read") writeFileSync(join(rig.workspace, `f${n}`), Buffer.alloc(n, 0x62));
  const result = await rig.host.call(toolName(c.path, c.profile, c.mode), { n, url: rig.server.origin, uncaught: c.uncaught });
  const what = `${c.path} of ${n} bytes against a cap of ${cap} (profile ${c.profile}, mode ${c.mode}${c.uncaught ? ", uncaught" : ""})`;
  if (!result.ok) {
    if (n <= cap) return `${what}: failed ${result.error.kind}: ${result.error.message}`;
    if (result.error.kind !== "tool_error" || !c.uncaught || !/larger than|more than|past its quota/.test(result.error.message)) return `${what}: ${result.error.kind}: ${result.error.message}`;
    return null;
  }
  const answer = result.structured as { ok: boolean; length?: number; code?: string; message?: string };
  if (n <= cap && (answer.ok !== true || answer.length !== n)) return `${what}: answered ${JSON.stringify(answer).slice(0, 300)}`;
  if (n > cap && (answer.ok !== false || answer.code !== "too_large")) return `${what}: answered ${JSON.stringify(answer).slice(0, 300)}`;
  return null;
}

/** The campaign's sources that have a strike in the ledger (there must be none). */
export async function struckSources(rig: PayloadRig): Promise<string[]> {
  const struck: string[] = [];
  for (let profile = 0; profile < PROFILES.length; profile++) {
    for (const path of PAYLOAD_PATHS) {
      const report = await rig.host.auditSource(sourceOf(profile, path));
      if ((report?.totals.strikes ?? 0) > 0) struck.push(`${sourceOf(profile, path)}: ${JSON.stringify(report?.lastStrike)}`);
    }
  }
  return struck;
}

export type PayloadCampaign = { ran: number; failures: { seed: number; reason: string }[]; struck: string[]; outcomes: Record<string, number> };

export async function runPayloadCampaign(dir: string, options: { count: number; seed: number; onFailure?: (failure: { seed: number; reason: string }) => void }): Promise<PayloadCampaign> {
  const rig = await openPayloadRig(dir);
  const stats: PayloadCampaign = { ran: 0, failures: [], struck: [], outcomes: {} };
  try {
    for (let index = 0; index < options.count; index++) {
      const seed = options.seed + index;
      const [c] = fc.sample(payloadCaseArbitrary, { seed, numRuns: 1 });
      if (c === undefined) throw new Error("fast-check generated no case");
      const key = `${c.path}:${sizeOf(c) <= capOf(PROFILES[c.profile] as Caps, c.path) ? "within" : "past"}`;
      stats.outcomes[key] = (stats.outcomes[key] ?? 0) + 1;
      const reason = await runPayloadCase(rig, c);
      stats.ran += 1;
      if (reason !== null) {
        stats.failures.push({ seed, reason });
        options.onFailure?.({ seed, reason });
      }
    }
    stats.struck = await struckSources(rig);
  } finally {
    await rig.close();
  }
  return stats;
}
