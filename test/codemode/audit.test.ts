/**
 * @module test/codemode/audit.test
 * `corral audit` shows scripts and the tools they called (issue 15, item 4),
 * from what a real host recorded while real scripts ran: on a SQLite file
 * and on the real PostgreSQL. Two callers' scripts call four tools (one a
 * timeout, a strike; one a tool error); the program calls one tool itself,
 * which no script source is charged with. The real `corral` bin then shows,
 * as text and as JSON, the tools each script source called and the script
 * sources that called a tool's source.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createCaller, outcomeOf, type ScriptCallersReport, type ScriptToolsReport } from "../../src/index.js";
import { SKIP_POSTGRES, TEST_POSTGRES_URL, testSchemas } from "../../src/ledger/testing/postgres.js";
import { runCli, type CliRun } from "../cli/cli-process.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";
import { loadTrio } from "./fixture.js";

const SCRIPT = `
const { sum } = await tools.add({ a: 1, b: 2 });
await tools.add({ a: sum, b: 3 });
await tools.shout({ text: "hi" });
const failed = [];
for (const call of [() => tools.vault({ key: "wrong" }), () => tools.spin({})]) {
  try { await call(); } catch (error) { failed.push(error.kind); }
}
return failed;
`;

const schemas = testSchemas("codemode_audit");
after(() => schemas.dropAll());

describe("corral audit: scripts and the tools they called", { timeout: 180_000 }, () => {
  const dir = tempDir("corral-codemode-audit-");
  after(() => dir.remove());

  async function recordScripts(ledger: string): Promise<void> {
    await withHost(
      async (host) => {
        await loadTrio(host);
        const spin = await host.load({ source: "agent:spin", code: toolSource({ name: "spin", extra: 'exposure: "codemode", limits: { timeoutMs: 200 },', run: "for (;;) {}" }) });
        assert.ok(spin.ok, JSON.stringify(spin));
        const first = await host.call("run_code", { code: SCRIPT }, { caller: createCaller({ id: "conv-7" }) });
        assert.ok(first.ok, JSON.stringify(first));
        assert.deepEqual(first.structured, ["tool_error", "timeout"]);
        const second = await host.call("run_code", { code: "return await tools.add({ a: 4, b: 4 });" }, { caller: createCaller({ id: "conv-8" }) });
        assert.deepEqual(second.ok ? second.structured : second.error, { sum: 8 });
        assert.equal(outcomeOf(await host.call("add", { a: 0, b: 0 })), "ok");
      },
      { codeMode: {}, ledger: { store: ledger } },
    );
  }

  async function audit(ledger: string, ...args: string[]): Promise<CliRun> {
    const run = await runCli(["audit", ...args, "--ledger", ledger], { cwd: dir.path });
    assert.equal(run.code, 0, run.stderr);
    return run;
  }

  async function checkAudit(ledger: string): Promise<void> {
    const json = JSON.parse((await audit(ledger, "code:conv-7", "--json")).stdout) as { scriptTools: ScriptToolsReport; tools: { tool: string }[] };
    // The script's own record is run_code's under its source; the tools it called are listed beside it.
    assert.deepEqual(json.tools.map((tool) => tool.tool), ["run_code"]);
    assert.equal(json.scriptTools.total, 4);
    assert.deepEqual(
      json.scriptTools.rows.map((row) => [row.tool, row.source, row.calls, row.strikes, row.outcomes]),
      [
        ["spin", "agent:spin", 1, 1, { timeout: 1 }],
        ["add", "agent:math", 2, 0, { ok: 2 }],
        ["vault", "agent:vault", 1, 0, { tool_error: 1 }],
        ["shout", "agent:words", 1, 0, { ok: 1 }],
      ],
    );
    const text = (await audit(ledger, "code:conv-7")).stdout;
    assert.match(text, /\ntools its scripts called \(4\)\n {2}TOOL +SOURCE +CALLS +STRIKES +OUTCOMES\n {2}spin +agent:spin +1 +1 +timeout 1\n {2}add +agent:math +2 +0 +ok 2\n/);

    const math = JSON.parse((await audit(ledger, "agent:math", "--json")).stdout) as { scriptCallers: ScriptCallersReport; totals: { calls: number } };
    // Four calls of add: three from scripts, one the program's own, which no script source is charged with.
    assert.equal(math.totals.calls, 4);
    assert.deepEqual(math.scriptCallers.rows.map((row) => [row.script, row.calls, row.strikes]), [["code:conv-7", 2, 0], ["code:conv-8", 1, 0]]);
    assert.match((await audit(ledger, "agent:math")).stdout, /\ncalled by 2 script sources: code:conv-7 \(2 calls\), code:conv-8 \(1 call\)\n/);
    assert.match((await audit(ledger, "agent:spin")).stdout, /\ncalled by 1 script source: code:conv-7 \(1 call, 1 strike\)\n/);
    assert.match((await audit(ledger, "code:conv-8")).stdout, /\ntools its scripts called \(1\)\n {2}TOOL.*\n {2}add +agent:math +1 +0 +ok 1\n/);
  }

  it("on a SQLite file", async () => {
    const ledger = join(dir.path, "ledger.db");
    await recordScripts(ledger);
    await checkAudit(ledger);
  });

  it("on PostgreSQL", { skip: SKIP_POSTGRES }, async () => {
    const url = new URL(TEST_POSTGRES_URL ?? "postgres://x@127.0.0.1/test");
    url.searchParams.set("schema", schemas.next());
    await recordScripts(url.toString());
    await checkAudit(url.toString());
  });
});
