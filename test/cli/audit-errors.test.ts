/**
 * @module test/cli/audit-errors.test
 * A real tool, run by a real host on a SQLite ledger, answers tool_error on
 * 4 of its 12 calls: the three places an operator looks (host.auditSource,
 * `corral audit`, the dashboard's API) each show a 33 % error rate, the
 * calls of its version, and its last messages, newest first; the audit also
 * answers the capability uses the tool made. What the tool was given never
 * reaches the ledger: the record of a call carries no input or output.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { outcomeOf, type HostSourceReport, type SourceRow } from "../../src/index.js";
import { createDashboard } from "../../src/dashboard/index.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";
import { runCli } from "./cli-process.js";

const SECRET = "SECRET-INPUT-7f3a";
const parse = toolSource({
  name: "parse_row",
  input: "z.object({ n: z.number(), secret: z.string() })",
  effects: ["state_write"],
  run: "await ctx.state.set('last', input.n); if (input.n % 3 === 2) throw new Error(`bad row ${input.n}`); return input.n;",
});
const MESSAGES = [/bad row 11/, /bad row 8/, /bad row 5/, /bad row 2/];

describe("a tool that fails 4 of its 12 calls, as the audit shows it", { timeout: 180_000 }, () => {
  const dir = tempDir("corral-audit-errors-");
  const ledgerFile = join(dir.path, "ledger.db");
  after(() => dir.remove());

  it("is at 33 % with its last messages in host.auditSource, corral audit and the dashboard, and none of its inputs", async () => {
    const report = await withHost(
      async (host) => {
        assert.ok((await host.load({ source: "agent:rows", code: parse })).ok);
        const outcomes = [];
        for (let n = 0; n < 12; n++) outcomes.push(outcomeOf(await host.call("parse_row", { n, secret: SECRET })));
        assert.equal(outcomes.filter((outcome) => outcome === "tool_error").length, 4, outcomes.join());
        return host.auditSource("agent:rows");
      },
      { ledger: { store: ledgerFile }, effects: { agent: { state_write: "allow" } }, capabilities: { state: { quotaBytes: 4096, maxKeys: 20 } } },
    );

    // host.auditSource
    const tool = report?.tools[0];
    assert.equal(report?.errorRate, 4 / 12);
    assert.equal(tool?.errorRate, 4 / 12);
    assert.deepEqual([tool?.totals.outcomes.ok, tool?.totals.outcomes.tool_error], [8, 4]);
    assert.equal(tool?.lastErrors.length, 4);
    tool?.lastErrors.forEach((error, i) => assert.match(error.message, MESSAGES[i] as RegExp));
    assert.deepEqual(tool?.versions.map((v) => [v.calls, v.errors, v.strikes]), [[12, 4, 0]]);
    assert.deepEqual(report?.capabilities.counters.map((c) => [c.tool, c.effect, c.outcome, c.uses]), [["parse_row", "state_write", "ok", 12]]);
    assert.equal(report?.capabilities.latest[0]?.target, "last");
    assert.ok(!JSON.stringify(report).includes(SECRET), "no input in the audit");

    // corral audit, both ways
    const corral = (...args: string[]) => runCli([...args, "--ledger", ledgerFile], { cwd: dir.path });
    const text = await corral("audit", "agent:rows");
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^errors 4 \(33\.3% of calls\), strikes 0 \(0\.0% of calls\)/m);
    assert.match(text.stdout, /^ +parse_row +[0-9a-f]{12} +\S+Z +12 +4 +33\.3% +0$/m);
    const shown = text.stdout.split("latest errors per tool, newest first\n")[1] ?? "";
    const lines = shown.split("\n").slice(1, 5);
    lines.forEach((line, i) => assert.match(line, new RegExp(`parse_row +tool_error +[0-9a-f]{12} +.*${(MESSAGES[i] as RegExp).source}`)));
    assert.match(text.stdout, /parse_row state_write ok: 12 uses/);
    const summary = await corral("audit");
    assert.match(summary.stdout, /^agent:rows +active +12 +8 +4 +0 +0 +0 +0 +0 +0 +0 +0 +33\.3% +0\.0% +tool_error: .*bad row 11/m);
    // The CLI's JSON is host.auditSource's answer, capability uses included, and what Code Mode made of it.
    const { scriptCallers, ...printed } = JSON.parse((await corral("audit", "agent:rows", "--json")).stdout) as HostSourceReport & { scriptCallers: unknown };
    assert.deepEqual(printed, report);
    assert.deepEqual(scriptCallers, { source: "agent:rows", total: 0, rows: [] });
    const rows = JSON.parse((await corral("audit", "--json")).stdout) as SourceRow[];
    assert.equal(rows[0]?.errorRate, 4 / 12);
    for (const run of [text, summary]) assert.ok(!run.stdout.includes(SECRET));

    // the dashboard's API
    const dashboard = await createDashboard({ ledger: ledgerFile, actor: "dashboard:test", token: "t".repeat(32) });
    try {
      const get = async (path: string) => {
        const response = await fetch(new URL(path, dashboard.url), { headers: { Authorization: `Bearer ${dashboard.token}` } });
        assert.equal(response.status, 200);
        return response.text();
      };
      const sourceText = await get(`/api/source?id=${encodeURIComponent("agent:rows")}`);
      const detail = (JSON.parse(sourceText) as { detail: { tools: { rows: { errors: number; errorRate: number; lastErrors: { message: string }[]; versions: { calls: number }[] }[] } } }).detail;
      const row = detail.tools.rows[0];
      assert.deepEqual([row?.errors, Math.round((row?.errorRate ?? 0) * 100), row?.versions.map((v) => v.calls)], [4, 33, [12]]);
      row?.lastErrors.forEach((error, i) => assert.match(error.message, MESSAGES[i] as RegExp));
      const overview = JSON.parse(await get("/api/overview")) as { page: { rows: { source: string; errorRate: number }[] } };
      assert.deepEqual(overview.page.rows.map((r) => [r.source, Math.round(r.errorRate * 100)]), [["agent:rows", 33]]);
      assert.ok(!sourceText.includes(SECRET));
    } finally {
      await dashboard.close();
    }
  });
});
