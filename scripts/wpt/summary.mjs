/**
 * Counts per area: tests, Node's passes, the corral tool's passes, and the
 * tool's passes among Node's (the measure the issue sets: ≥ 97 %). A test
 * is a (file, variant, test name) triple; a name seen twice in one file
 * counts once. Strike kinds among the tool's calls are listed: a WPT file
 * should never cost the tool a strike.
 */
import { TEST_STATUS } from "./harness.mjs";

const STRIKES = new Set(["timeout", "memory", "crash"]);

const passes = (answer) => {
  const out = new Map();
  for (const t of answer?.tests ?? []) out.set(t.name, TEST_STATUS[t.status] ?? String(t.status));
  return out;
};

export function summarize(records) {
  const areas = new Map();
  const regressions = [];
  const strikes = [];
  for (const record of records) {
    const area = areas.get(record.area) ?? { files: 0, tests: 0, node: 0, corral: 0, both: 0 };
    areas.set(record.area, area);
    area.files++;
    if (STRIKES.has(record.outcome)) strikes.push({ id: record.id, outcome: record.outcome, message: record.corral.failed });
    const node = passes(record.node);
    const corral = passes(record.corral);
    const names = new Set([...node.keys(), ...corral.keys()]);
    for (const name of names) {
      area.tests++;
      const inNode = node.get(name) === "PASS";
      const inCorral = corral.get(name) === "PASS";
      if (inNode) area.node++;
      if (inCorral) area.corral++;
      if (inNode && inCorral) area.both++;
      if (inNode && !inCorral) {
        const test = record.corral.tests?.find((t) => t.name === name);
        regressions.push({ id: record.id, name, status: corral.get(name) ?? "MISSING", message: test?.message ?? record.corral.failed ?? null });
      }
    }
  }
  const total = { files: 0, tests: 0, node: 0, corral: 0, both: 0 };
  for (const area of areas.values()) for (const key of Object.keys(total)) total[key] += area[key];
  return { areas: Object.fromEntries([...areas].sort()), total, strikes, regressions };
}

const pct = (part, whole) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)} %`);

export function formatSummary({ areas, total, strikes, regressions }) {
  const lines = ["| area | files | tests | Node passes | corral passes | corral of Node's |", "|---|---|---|---|---|---|"];
  const row = (name, a) => `| ${name} | ${a.files} | ${a.tests} | ${a.node} (${pct(a.node, a.tests)}) | ${a.corral} (${pct(a.corral, a.tests)}) | ${a.both}/${a.node} (${pct(a.both, a.node)}) |`;
  for (const [name, a] of Object.entries(areas)) lines.push(row(name, a));
  lines.push(row("**all**", total));
  lines.push("", `strikes: ${strikes.length}${strikes.map((s) => `\n  ${s.id}: ${s.outcome} ${s.message ?? ""}`).join("")}`);
  lines.push(`Node passes the tool fails: ${regressions.length}`);
  return lines.join("\n");
}
