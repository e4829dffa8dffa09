/**
 * The CLI on a PostgreSQL ledger (`--ledger postgres://…`): an empty schema
 * is refused as a missing file is; audit shows what a host on the same
 * database recorded; quarantine and release reach that host at its next
 * call; `run` records into it; no message shows the URL's password.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { outcomeOf } from "../../src/index.js";
import type { SourceRow } from "../../src/index.js";
import { SKIP_POSTGRES, TEST_POSTGRES_URL, testSchemas } from "../../src/ledger/testing/postgres.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";
import { runCli, type CliRun } from "./cli-process.js";

const schemas = testSchemas("cli");
after(() => schemas.dropAll());

describe("the CLI on a PostgreSQL ledger", { timeout: 180_000, skip: SKIP_POSTGRES }, () => {
  const dir = tempDir("corral-cli-pg-");
  after(() => dir.remove());
  const schema = schemas.next();
  // A password the server (trust auth) ignores, so a test can see that no message shows it.
  const withPassword = new URL(TEST_POSTGRES_URL ?? "postgres://x@127.0.0.1/test");
  withPassword.password = "not-to-be-shown";
  withPassword.searchParams.set("schema", schema);
  const url = withPassword.toString();
  const corral = (...args: string[]): Promise<CliRun> => runCli([...args, "--ledger", url], { cwd: dir.path, cacheDir: `${dir.path}/cache` });
  const noSecret = (run: CliRun) => assert.doesNotMatch(run.stdout + run.stderr, /not-to-be-shown/);

  it("refuses a schema no host has made, with exit 1, as a missing file", async () => {
    const run = await corral("audit");
    noSecret(run);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`no corral ledger in the schema "${schema}"`));
  });

  it("audits what a host recorded, and its quarantine and release reach the host at its next call", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:pg-cli", code: toolSource({ name: "pg_echo", run: "return 'hi';" }) });
        for (let i = 0; i < 3; i++) assert.equal(outcomeOf(await host.call("pg_echo", {})), "ok");

        const quarantined = await corral("quarantine", "agent:pg-cli", "--reason", "seen misbehaving");
        noSecret(quarantined);
        assert.equal(quarantined.code, 0, quarantined.stderr);
        assert.equal(outcomeOf(await host.call("pg_echo", {})), "quarantined");

        const audit = await corral("audit", "--json");
        noSecret(audit);
        assert.equal(audit.code, 0, audit.stderr);
        const row = (JSON.parse(audit.stdout) as SourceRow[]).find((r) => r.source === "agent:pg-cli");
        assert.equal(row?.state.state, "quarantined");
        assert.equal(row?.totals.outcomes.ok, 3);

        const released = await corral("release", "agent:pg-cli");
        assert.equal(released.code, 0, released.stderr);
        assert.equal(outcomeOf(await host.call("pg_echo", {})), "ok");

        // One source's report: this source used no capability.
        const report = await corral("audit", "agent:pg-cli");
        noSecret(report);
        assert.equal(report.code, 0, report.stderr);
        assert.match(report.stdout, /capabilities: none used/);
      },
      { ledger: { store: url } },
    );
    const table = await corral("audit");
    noSecret(table);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /agent:pg-cli/);
  });

  it("keeps ctx.state and the record of capability use in the ledger's schema: another host sees them, and audit shows the uses", async () => {
    const counter = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "pg_counter",
  description: "counts its calls in ctx.state",
  input: z.object({}),
  effects: ["state_write"],
  async run(_input, ctx) {
    const next = ((await ctx.state.get("count")) ?? 0) + 1;
    await ctx.state.set("count", next);
    return next;
  },
});`;
    const options = { ledger: { store: url }, effects: { agent: { state_write: "allow" as const } }, capabilities: { state: { quotaBytes: 1024 } } };
    const countOnce = (host: Parameters<Parameters<typeof withHost>[0]>[0]) => host.call("pg_counter", {});
    await withHost(async (host) => {
      assert.ok((await host.load({ source: "agent:pg-state", code: counter })).ok);
      for (const expected of [1, 2]) {
        const result = await countOnce(host);
        assert.ok(result.ok, JSON.stringify(result));
        assert.equal(result.structured, expected);
      }
    }, options);
    // A new host (a restart, or another host of the fleet) on the same ledger.
    await withHost(async (host) => {
      assert.ok((await host.load({ source: "agent:pg-state", code: counter })).ok);
      const result = await countOnce(host);
      assert.equal(result.ok ? result.structured : result.error.message, 3);
    }, options);
    const report = await corral("audit", "agent:pg-state");
    noSecret(report);
    assert.equal(report.code, 0, report.stderr);
    // Three calls, each a get and a set.
    assert.match(report.stdout, /pg_counter state_write ok: 6 uses/);
    assert.match(report.stdout, /pg_counter state.set count → ok/);
  });

  it("records the calls `corral run` makes", async () => {
    const file = `${dir.path}/tool.ts`;
    writeFileSync(file, toolSource({ name: "pg_run", run: "return 'ran';" }));
    const run = await corral("run", file, "--input", "{}");
    noSecret(run);
    assert.equal(run.code, 0, run.stderr);
    const audit = await corral("audit", "--json");
    const rows = JSON.parse(audit.stdout) as SourceRow[];
    assert.ok(rows.some((r) => r.tools.some((t) => t.tool === "pg_run" && t.totals.calls === 1)), audit.stdout);
  });
});
