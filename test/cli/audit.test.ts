/**
 * @module test/cli/audit.test
 * The operator's commands against a ledger file that real hosts write:
 * `corral audit` counts exactly the calls made, sees the quarantine after the
 * third strike and not before, and `corral release` / `corral quarantine`
 * change what a host on the same file does at its next call. Also an empty
 * ledger, a missing one, and misuse.
 *
 * No tool code can crash its worker on purpose (corral is built so that it
 * cannot: a fatal out-of-memory is labelled memory), so the crash here is the
 * worker killed from outside while a tool runs, which is what `crash` records.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { Ledger, OUTCOME_KINDS, outcomeOf, type Host, type OutcomeKind, type SourceReport, type SourceRow, type StateChange, type ToolResult } from "../../src/index.js";
import { childPids, tempDir, toolSource, withHost } from "../helpers/host.js";
import { runCli, type CliRun } from "./cli-process.js";

const SPIN_LIMIT_MS = 200;
const spinner = toolSource({ name: "spin", extra: `limits: { timeoutMs: ${SPIN_LIMIT_MS} },`, run: "for (;;) {}" });
const good = toolSource({ name: "echo", input: "z.object({ n: z.number() })", run: "if (input.n < 0) throw new Error('negative on purpose'); return input.n;" });
/** One source, three tools: one that works, one whose worker gets killed, one that eats memory. */
const flaky = `import { defineTool } from "corral";
import { z } from "zod";
export const fine = defineTool({ name: "flaky_ok", description: "works", input: z.object({}), effects: [], run: () => "fine" });
export const victim = defineTool({ name: "flaky_spin", description: "spins until its worker is killed", input: z.object({}), effects: [], limits: { timeoutMs: 20000 }, run() { for (;;) {} } });
export const hog = defineTool({ name: "flaky_hog", description: "allocates without end", input: z.object({}), effects: [], limits: { memoryMb: 32 },
  run() { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); } });
`;

/** Outcome counts per source and tool, as the host reported each call. */
class Expected {
  readonly #counts = new Map<string, Map<string, Map<OutcomeKind, number>>>();

  note(source: string, tool: string, result: ToolResult): OutcomeKind {
    const outcome = outcomeOf(result);
    const tools = this.#counts.get(source) ?? new Map<string, Map<OutcomeKind, number>>();
    const counts = tools.get(tool) ?? new Map<OutcomeKind, number>();
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    tools.set(tool, counts);
    this.#counts.set(source, tools);
    return outcome;
  }

  /** Every outcome kind of every tool and of the source's totals, zeros included. */
  assertMatches(rows: readonly SourceRow[]): void {
    assert.deepEqual(rows.map((row) => row.source).sort(), [...this.#counts.keys()].sort());
    for (const row of rows) {
      const tools = this.#counts.get(row.source);
      assert.ok(tools !== undefined);
      assert.deepEqual(row.tools.map((t) => t.tool).sort(), [...tools.keys()].sort(), row.source);
      for (const kind of OUTCOME_KINDS) {
        let sum = 0;
        for (const tool of row.tools) {
          const want: number = tools.get(tool.tool)?.get(kind) ?? 0;
          sum += want;
          assert.equal(tool.totals.outcomes[kind], want, `${row.source} ${tool.tool} ${kind}`);
        }
        assert.equal(row.totals.outcomes[kind], sum, `${row.source} ${kind}`);
      }
      let calls = 0;
      for (const counts of tools.values()) for (const n of counts.values()) calls += n;
      assert.equal(row.totals.calls, calls, `${row.source} calls`);
    }
  }
}

/** Ends the sandbox workers started since `before` while `call` runs: the call's outcome is a crash. */
async function killWorkersDuring(host: Host, before: number[], call: () => Promise<ToolResult>): Promise<ToolResult> {
  const running = new Promise<void>((resolve) => {
    const off = host.on((event) => {
      if (event.type === "tool_running") {
        off();
        resolve();
      }
    });
  });
  const result = call();
  await running;
  // Let the worker get into the tool's loop; killed earlier, it is a crash all the same.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const pids = childPids().filter((pid) => !before.includes(pid));
  assert.ok(pids.length > 0, "no sandbox worker to kill");
  for (const pid of pids) process.kill(pid, "SIGKILL");
  return result;
}

function operator(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return `cli:${process.env.USER ?? process.env.USERNAME ?? "unknown"}`;
  }
}

describe("corral audit, quarantine and release", { timeout: 180_000 }, () => {
  const dir = tempDir("corral-cli-audit-");
  const ledgerFile = join(dir.path, "ledger.db");
  const corral = (...args: string[]): Promise<CliRun> => runCli([...args, "--ledger", ledgerFile], { cwd: dir.path });
  const hostOptions = { ledger: { store: ledgerFile } };
  after(() => dir.remove());

  async function auditJson(): Promise<SourceRow[]> {
    const run = await corral("audit", "--json");
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as SourceRow[];
  }
  async function reportJson(source: string, ...flags: string[]): Promise<SourceReport> {
    const run = await corral("audit", source, "--json", ...flags);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as SourceReport;
  }
  const rowOf = (rows: SourceRow[], source: string): SourceRow => {
    const row = rows.find((r) => r.source === source);
    assert.ok(row !== undefined, `${source} in ${rows.map((r) => r.source).join(", ")}`);
    return row;
  };

  it("counts exactly the calls a running host made; quarantine shows after the third strike, not the second", async () => {
    const expected = new Expected();
    const before = childPids();
    await withHost(async (host) => {
      for (const [source, code] of [["agent:spinner", spinner], ["agent:good", good], ["agent:flaky", flaky]] as const) {
        const loaded = await host.load({ source, code });
        assert.ok(loaded.ok, JSON.stringify(loaded));
      }
      for (const n of [1, 2, 3, 4, 5]) assert.equal(expected.note("agent:good", "echo", await host.call("echo", { n })), "ok");
      for (const n of [-1, -2]) assert.equal(expected.note("agent:good", "echo", await host.call("echo", { n })), "tool_error");
      for (const n of ["a", null, true]) assert.equal(expected.note("agent:good", "echo", await host.call("echo", { n })), "invalid_input");
      for (let i = 0; i < 2; i++) assert.equal(expected.note("agent:flaky", "flaky_ok", await host.call("flaky_ok", {})), "ok");
      const killed = await killWorkersDuring(host, before, () => host.call("flaky_spin", {}));
      assert.equal(expected.note("agent:flaky", "flaky_spin", killed), "crash");
      assert.equal(expected.note("agent:flaky", "flaky_hog", await host.call("flaky_hog", {})), "memory");

      for (let i = 0; i < 2; i++) assert.equal(expected.note("agent:spinner", "spin", await host.call("spin", {})), "timeout");
      const afterTwo = await auditJson();
      expected.assertMatches(afterTwo);
      const spinnerAfterTwo = rowOf(afterTwo, "agent:spinner");
      assert.equal(spinnerAfterTwo.state.state, "active", "two strikes must not quarantine");
      assert.equal(spinnerAfterTwo.totals.strikes, 2);

      assert.equal(expected.note("agent:spinner", "spin", await host.call("spin", {})), "timeout");
      const afterThree = await auditJson();
      expected.assertMatches(afterThree);
      const spinnerAfterThree = rowOf(afterThree, "agent:spinner");
      assert.equal(spinnerAfterThree.state.state, "quarantined", "the third strike quarantines");
      assert.equal(spinnerAfterThree.totals.strikes, 3);

      // Refused without running, and counted as such.
      assert.equal(expected.note("agent:spinner", "spin", await host.call("spin", {})), "quarantined");
      const rows = await auditJson();
      expected.assertMatches(rows);
      assert.deepEqual(
        rows.map((row) => row.source),
        ["agent:spinner", "agent:flaky", "agent:good"],
        "quarantined first, then by strikes",
      );
      assert.equal(rowOf(rows, "agent:flaky").state.state, "active");
      assert.equal(rowOf(rows, "agent:flaky").totals.strikes, 2);
      assert.equal(rowOf(rows, "agent:good").totals.strikes, 0);

      const table = await corral("audit");
      assert.equal(table.code, 0, table.stderr);
      assert.equal(table.stderr, "");
      const spinnerRow = rowOf(rows, "agent:spinner");
      assert.ok(spinnerRow.state.state === "quarantined" && spinnerRow.lastStrike !== null);
      assert.match(table.stdout, /^ledger .*: 3 sources, 18 calls, 5 strikes, 1 quarantined$/m);
      // CALLS OK TOOL_ERR INVALID BLOCKED CANCELLED BUSY TIMEOUT MEMORY CRASH OTHER ERROR% STRIKE% LAST ERROR
      const spinnerLast = spinnerRow.tools[0]?.lastErrors[0];
      assert.equal(spinnerLast?.outcome, "quarantined", "the refusal is the spinner's latest error");
      assert.match(table.stdout, /^agent:spinner +quarantined +4 +0 +0 +0 +0 +0 +0 +3 +0 +0 +1 +100\.0% +75\.0% +quarantined: /m);
      assert.ok(table.stdout.includes(`quarantined: ${spinnerLast?.message.slice(0, 30) ?? "?"}`), table.stdout);
      assert.ok(table.stdout.includes(`until ${new Date(spinnerRow.state.until ?? 0).toISOString()}, by policy: 3 strikes`), table.stdout);
      assert.match(table.stdout, /^ {2}spin +4 +0 +0 +0 +0 +0 +0 +3 +0 +0 +1 +100\.0% +75\.0% +quarantined: /m);
      assert.match(table.stdout, /^agent:flaky +active +4 +2 +0 +0 +0 +0 +0 +0 +1 +1 +0 +50\.0% +50\.0% +memory: /m);
      assert.match(table.stdout, /^ {2}flaky_spin +1 +0 +0 +0 +0 +0 +0 +0 +0 +1 +0 +100\.0% +100\.0% +crash: the sandbox worker died/m);
      assert.match(table.stdout, /^agent:good +active +10 +5 +2 +3 +0 +0 +0 +0 +0 +0 +0 +50\.0% +0\.0% +invalid_input: /m);
      assert.match(table.stdout, /^ {2}echo +10 +5 +2 +3 +0 +0 +0 +0 +0 +0 +0 +50\.0% +0\.0% +invalid_input: /m);
      const order = ["agent:spinner", "agent:flaky", "agent:good"].map((source) => table.stdout.indexOf(`\n${source} `));
      assert.deepEqual([...order].sort((a, b) => a - b), order, "the table keeps the order of trouble");
    }, hostOptions);
  });

  it("audit <source> lists its quarantine event, its strikes and its tools", async () => {
    const report = await reportJson("agent:spinner");
    assert.equal(report.state.state, "quarantined");
    assert.deepEqual(report.events.map((e) => [e.kind, e.actor]), [["quarantine", "policy"]]);
    assert.deepEqual(report.strikes.map((s) => [s.tool, s.outcome]), [["spin", "timeout"], ["spin", "timeout"], ["spin", "timeout"]]);
    assert.equal((await reportJson("agent:spinner", "--events", "0", "--strikes", "1")).strikes.length, 1);
    assert.equal((await reportJson("agent:spinner", "--events", "0")).events.length, 0);

    const text = await corral("audit", "agent:spinner");
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^agent:spinner quarantined since \S+ until \S+, by policy: 3 strikes within/m);
    assert.match(text.stdout, /^calls 4: ok 0, tool_error 0, invalid_input 0, timeout 3, memory 0, crash 0, blocked 0, quarantined 1, cancelled 0, busy 0$/m);
    assert.match(text.stdout, /^errors 4 \(100\.0% of calls\), strikes 3 \(75\.0% of calls\), 1 version, last call \S+Z$/m);
    assert.match(text.stdout, /^calls per version, newest first\n +TOOL +VERSION +FIRST SEEN +CALLS +ERRORS +ERROR % +STRIKES\n +spin +[0-9a-f]{12} +\S+Z +4 +4 +100\.0% +3$/m);
    assert.match(text.stdout, /^latest errors per tool, newest first\n +TIME +TOOL +OUTCOME +VERSION +MESSAGE\n +\S+Z +spin +quarantined +[0-9a-f]{12} +\S/m);
    assert.equal((text.stdout.match(/^ +\S+Z +spin +timeout +[0-9a-f]{12} +the tool ran/gm) ?? []).length, 3, `its three timeouts among its latest errors: ${text.stdout}`);
    assert.deepEqual(report.tools[0]?.lastErrors.map((error) => error.outcome), ["quarantined", "timeout", "timeout", "timeout"]);
    assert.match(text.stdout, /^recent events, newest first \(1\)\n +TIME +KIND +ACTOR +UNTIL +REASON\n +\S+ +quarantine +policy +\S+Z +3 strikes within/m);
    assert.equal((text.stdout.match(/^ +\S+ +spin +timeout +the tool ran/gm) ?? []).length, 3, text.stdout);
  });

  it("release makes a quarantined source active: a host on the same file runs its tool again", async () => {
    await withHost(async (host) => {
      assert.ok((await host.load({ source: "agent:spinner", code: spinner })).ok);
      const refused = await host.call("spin", {});
      assert.equal(outcomeOf(refused), "quarantined", "a new host on the file sees the quarantine");

      const released = await corral("release", "agent:spinner", "--reason", "fixed upstream");
      assert.equal(released.code, 0, released.stderr);
      assert.match(released.stdout, /^agent:spinner active since \S+Z$/m);
      assert.equal(rowOf(await auditJson(), "agent:spinner").state.state, "active");

      const again = await host.call("spin", {});
      assert.equal(outcomeOf(again), "timeout", "released: the tool runs into its limit again");
      assert.ok(again.metrics.wallMs >= SPIN_LIMIT_MS * 0.9, String(again.metrics.wallMs));
    }, hostOptions);
    const row = rowOf(await auditJson(), "agent:spinner");
    assert.equal(row.totals.outcomes.timeout, 4);
    assert.equal(row.totals.outcomes.quarantined, 2);
    assert.equal(row.state.state, "active", "a strike after a release starts a new count");

    const twice = await corral("release", "agent:spinner");
    assert.equal(twice.code, 0, twice.stderr);
    assert.match(twice.stdout, /^agent:spinner was not quarantined; nothing changed$/m);
    const report = await reportJson("agent:spinner");
    assert.deepEqual(report.events.map((e) => [e.kind, e.actor]), [["release", operator()], ["quarantine", "policy"]], "a second release records nothing");
    assert.equal(report.events[0]?.reason, "fixed upstream");
  });

  it("quarantine makes a host on the same file answer quarantined at its next call", async () => {
    await withHost(async (host) => {
      assert.ok((await host.load({ source: "agent:good", code: good })).ok);
      assert.equal(outcomeOf(await host.call("echo", { n: 7 })), "ok");
      const startedMs = Date.now();
      const run = await corral("quarantine", "agent:good", "--reason", "suspicious output", "--until", "2h", "--json");
      assert.equal(run.code, 0, run.stderr);
      const change = JSON.parse(run.stdout) as StateChange;
      assert.equal(change.state.state, "quarantined");
      assert.deepEqual(change.events.map((e) => [e.kind, e.actor, e.reason]), [["manual_quarantine", operator(), "suspicious output"]]);

      const refused = await host.call("echo", { n: 7 });
      assert.ok(!refused.ok);
      assert.equal(refused.error.kind, "quarantined");
      assert.match(refused.error.message, /suspicious output/);

      const report = await reportJson("agent:good");
      assert.ok(report.state.state === "quarantined");
      assert.equal(report.state.actor, operator());
      const twoHoursMs = 2 * 3_600_000;
      assert.ok(report.state.until !== null && Math.abs(report.state.until - startedMs - twoHoursMs) < 60_000, String(report.state.until));
      assert.equal(report.totals.outcomes.quarantined, 1);
    }, hostOptions);

    const byDefault = await corral("quarantine", "agent:flaky");
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.match(byDefault.stdout, /^agent:flaky quarantined since \S+Z until released, by cli:\S+: quarantined by an operator$/m);
    const state = rowOf(await auditJson(), "agent:flaky").state;
    assert.ok(state.state === "quarantined");
    assert.equal(state.until, null);
    assert.equal(state.reason, "quarantined by an operator");
  });

  it("an empty ledger says so and exits 0; the default file is .corral/ledger.db in the working directory", async () => {
    const cwd = join(dir.path, "empty");
    mkdirSync(join(cwd, ".corral"), { recursive: true });
    const ledger = new Ledger({ store: join(cwd, ".corral", "ledger.db") });
    await ledger.close();
    const run = await runCli(["audit"], { cwd });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "no calls recorded in .corral/ledger.db\n");
    const json = await runCli(["audit", "--json"], { cwd });
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), []);
  });

  it("a ledger file that does not exist is a failure (exit 1) and is not created", async () => {
    const missing = join(dir.path, "nowhere", "ledger.db");
    for (const args of [["audit"], ["audit", "agent:good"], ["quarantine", "agent:good"], ["release", "agent:good"]]) {
      const run = await runCli([...args, "--ledger", missing], { cwd: dir.path });
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.ok(run.stderr.includes(`there is no ledger at ${missing}`), run.stderr);
    }
    assert.equal(existsSync(join(dir.path, "nowhere")), false);
  });

  it("misuse is a usage error (exit 2); a source the ledger never saw is a failure (exit 1)", async () => {
    const badId = await corral("quarantine", "not-a-source");
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /"not-a-source" is not a source id/);
    const badUntil = await corral("quarantine", "agent:good", "--until", "yesterday");
    assert.equal(badUntil.code, 2);
    assert.match(badUntil.stderr, /--until <time>' argument 'yesterday' is invalid/);
    const past = await corral("quarantine", "agent:good", "--until", "2001-01-01T00:00:00Z");
    assert.equal(past.code, 2);
    assert.match(past.stderr, /not in the future/);
    const strayFlag = await corral("audit", "--events", "3");
    assert.equal(strayFlag.code, 2);
    assert.match(strayFlag.stderr, /--events and --strikes apply to one source's report/);
    const negative = await corral("audit", "agent:good", "--strikes", "-1");
    assert.equal(negative.code, 2);
    const unknown = await corral("audit", "agent:ghost");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /agent:ghost has no record in /);
    assert.equal((await auditJson()).some((row) => row.source === "agent:ghost"), false, "asking about a source records nothing");
  });

  it("every operator command has its help", async () => {
    const top = await runCli(["--help"], { cwd: dir.path });
    assert.equal(top.code, 0);
    for (const command of ["audit", "quarantine", "release"]) assert.match(top.stdout, new RegExp(`^  ${command} `, "m"));
    assert.match(top.stdout, /--ledger <file\|url>/);
    const help = {
      audit: ["[source]", "--json", "--events <n>", "--strikes <n>", "--ledger <file|url>"],
      quarantine: ["<source>", "--reason <text>", "--until <time>", "--actor <name>", "--ledger <file|url>"],
      release: ["<source>", "--reason <text>", "--actor <name>", "--ledger <file|url>"],
    };
    for (const [command, flags] of Object.entries(help)) {
      const run = await runCli([command, "--help"], { cwd: dir.path });
      assert.equal(run.code, 0, run.stderr);
      for (const flag of flags) assert.ok(run.stdout.includes(flag), `${command} --help: ${flag}`);
    }
  });
});
