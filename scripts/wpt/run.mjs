#!/usr/bin/env node
/**
 * Runs the Web Platform Tests' own files for WinterTC's Minimum Common API
 * inside a corral tool and, on the same files, in plain Node, and reports
 * per area how many of the tests Node passes a corral tool passes too.
 *
 *   node scripts/wpt/run.mjs --wpt <a WPT checkout> [--only url,encoding/streams] [--out results.json]
 *
 * WPT is not part of corral: point --wpt (or CORRAL_WPT_DIR) at a checkout.
 * Each file runs once per META variant; .html files are not run (they need
 * a document). Build first (`npm run build`).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { listTests, scriptsOf, timeoutOf, AREAS } from "./tests.mjs";
import { runInNode } from "./in-node.mjs";
import { corralRunner } from "./in-corral.mjs";
import { summarize, formatSummary } from "./summary.mjs";

const { values } = parseArgs({
  options: {
    wpt: { type: "string", default: process.env.CORRAL_WPT_DIR },
    only: { type: "string" },
    out: { type: "string", default: "wpt-results.json" },
    jobs: { type: "string", default: "2" },
  },
});
if (!values.wpt) {
  console.error("wpt: give --wpt <folder of a web-platform-tests checkout> (or set CORRAL_WPT_DIR)");
  process.exit(2);
}
const areas = values.only ? values.only.split(",") : AREAS;
const tests = listTests(values.wpt, areas);
const { host, run } = await corralRunner(values.wpt);
const records = [];
let next = 0;
let doneCount = 0;
const started = Date.now();

async function runOne(test) {
  const input = { path: test.path, search: test.search, timeoutMs: timeoutOf(test), scripts: scriptsOf(values.wpt, test) };
  const node = await runInNode(values.wpt, input);
  const requested = node.requested ?? [];
  const result = await run(input, requested);
  const corral = result.ok ? result.structured : { failed: `${result.error.kind}: ${result.error.message}` };
  return { id: test.id, area: test.area, outcome: result.ok ? "ok" : result.error.kind, node, corral };
}

async function lane() {
  while (next < tests.length) {
    const test = tests[next++];
    records.push(await runOne(test));
    doneCount++;
    if (doneCount % 25 === 0 || doneCount === tests.length) {
      process.stderr.write(`wpt: ${doneCount}/${tests.length} files, ${Math.round((Date.now() - started) / 1000)} s\n`);
    }
  }
}

await Promise.all(Array.from({ length: Number(values.jobs) }, lane));
await host.close();
records.sort((a, b) => a.id.localeCompare(b.id));
const summary = summarize(records);
writeFileSync(values.out, JSON.stringify({ node: process.version, at: new Date().toISOString(), summary, records }, null, 1));
console.log(formatSummary(summary));
