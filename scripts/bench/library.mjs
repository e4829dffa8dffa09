// The library of agent-written tools at 1,000 tools: what a host pays to
// start on it (reading the store and listing every tool, none compiled),
// what tool_search costs over it (through host.call, the whole call path
// and its ledger record; and the BM25 index alone, built once per change of
// the catalog), and what it adds to the declarations a model is sent by
// default (only the `direct` tools: here 1 in 100). The store is seeded
// directly with checked-looking manifests (publishing 1,000 modules through
// host.author would time esbuild and describes, measured elsewhere).
//
//   node --no-node-snapshot scripts/bench/library.mjs   (after npm run build; prints JSON)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { distUrl } from "./dist.mjs";
import { summarize, timeSerial, timeSync } from "./harness.mjs";

const VERBS = ["convert", "parse", "summarize", "count", "extract", "validate", "format", "merge", "split", "sort", "filter", "translate", "hash", "compress", "render", "search", "tokenize", "score", "classify", "normalize"];
const NOUNS = ["csv", "json", "markdown", "invoice", "address", "date", "email", "url", "table", "log", "image caption", "price", "sentence", "calendar event", "phone number", "sql query", "html page", "yaml file", "time zone", "currency"];
const PARAMS = ["text", "delimiter", "locale", "limit", "format", "pattern", "encoding", "fields", "strict", "timezone"];

/** The manifest of tool i, as corral's check leaves one: deterministic, varied words. */
function manifestOf(i) {
  const verb = VERBS[i % VERBS.length];
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
  const name = `${verb}_${noun.replace(/ /g, "_")}_${i}`;
  const params = [PARAMS[i % PARAMS.length], PARAMS[(i * 7 + 3) % PARAMS.length]];
  return {
    name,
    description: `${verb[0].toUpperCase()}${verb.slice(1)}s a ${noun} given as text and answers the result; variant ${i} handles ${NOUNS[(i * 3) % NOUNS.length]} input too.`,
    inputSchema: { type: "object", properties: Object.fromEntries(params.map((p) => [p, { type: "string", description: `the ${p}` }])), required: [params[0]], additionalProperties: false },
    effects: [],
    exposure: i % 100 === 0 ? "direct" : "deferred",
    limits: {},
  };
}

async function seed(file, tools) {
  const { SqliteLibraryStore } = await import(distUrl("src/library/index.js"));
  const store = new SqliteLibraryStore(file);
  try {
    for (let i = 0; i < tools; i++) {
      const code = `// module ${i}\nexport default ${i};`;
      const manifest = manifestOf(i);
      const draft = { agent: `agent${i % 10}`, caller: null, code, hash: createHash("sha256").update(code).digest("hex"), manifests: [{ name: manifest.name, json: JSON.stringify(manifest) }], at: Date.now() };
      const outcome = await store.publish(draft, { maxTools: tools });
      if (!outcome.ok) throw new Error(`seeding the library failed: ${JSON.stringify(outcome)}`);
    }
  } finally {
    await store.close();
  }
}

export async function measureLibrary(tempDir, { tools = 1_000, queries = 300, log = () => undefined } = {}) {
  const { createHost } = await import(distUrl("src/index.js"));
  const { SearchIndex } = await import(distUrl("src/registry/search.js"));
  const dir = mkdtempSync(join(tempDir, "library-"));
  const file = join(dir, "ledger.db");
  await seed(file, tools);
  log(`library: ${tools} tools seeded`);
  const bare = createHost({ workers: 1, cacheDir: join(dir, "cache"), ledger: { store: join(dir, "empty.db") } });
  const started = performance.now();
  const host = createHost({ workers: 1, cacheDir: join(dir, "cache"), ledger: { store: file } });
  try {
    await host.library.ready();
    const readyMs = performance.now() - started;
    const declared = host.declarations();
    const bareDeclared = bare.declarations();
    const words = [...VERBS, ...NOUNS.flatMap((noun) => noun.split(" ")), ...PARAMS];
    let q = 0;
    const nextQuery = () => {
      q++;
      return `${words[(q * 7) % words.length]} ${words[(q * 13 + 5) % words.length]} ${words[(q * 29 + 11) % words.length]}`;
    };
    const firstStarted = performance.now();
    const first = await host.call("tool_search", { query: nextQuery() });
    const firstSearchMs = performance.now() - firstStarted;
    if (!first.ok) throw new Error(`tool_search failed: ${first.error.message}`);
    const viaHost = summarize(await timeSerial(() => host.call("tool_search", { query: nextQuery() }), queries));
    const entries = host.tools().map((info) => ({ manifest: { name: info.name, description: info.description, inputSchema: info.inputSchema, exposure: info.exposure }, source: info.source }));
    const buildStarted = performance.now();
    const index = new SearchIndex(entries);
    const indexBuildMs = performance.now() - buildStarted;
    const indexOnly = summarize(timeSync(() => index.search(nextQuery(), 5), queries * 10));
    // After one tool changes, the index is built again from the other tools' kept terms.
    const rebuildStarted = performance.now();
    new SearchIndex(entries);
    const indexRebuildMs = performance.now() - rebuildStarted;
    return {
      tools,
      readyMs,
      listed: host.tools().length,
      declared: declared.length,
      declaredBytes: JSON.stringify(declared).length,
      bareDeclared: bareDeclared.length,
      bareDeclaredBytes: JSON.stringify(bareDeclared).length,
      firstSearchMs,
      searchViaHost: viaHost,
      indexBuildMs,
      indexRebuildMs,
      indexSearch: indexOnly,
    };
  } finally {
    await Promise.all([host.close(), bare.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), "corral-bench-library-"));
  try {
    console.log(JSON.stringify(await measureLibrary(dir, { log: (m) => console.error(m) }), null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
