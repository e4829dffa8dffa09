/**
 * The ledger through the host: strikes per source, quarantine after the third
 * and not before, a quarantined source refused at once, operators' release,
 * and agents' tools that keep their record across versions.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { createHost, Ledger, outcomeOf, SqliteLedgerStore, type Host, type HostEvent } from "../../src/index.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";
import { COMMIT_BEHIND_MS } from "../../sandbox/shared/tuning.js";

const looping = (name: string) => toolSource({ name, extra: "limits: { timeoutMs: 200 },", run: "for (;;) {}" });

describe("the ledger through the host", { timeout: 180_000 }, () => {
  it("the third strike within the window quarantines the source, not the second; a quarantined call runs nothing", async () => {
    const events: HostEvent[] = [];
    await withHost(
      async (host) => {
        await host.load({ source: "agent:loops", code: looping("spin") });
        for (let i = 1; i <= 2; i++) {
          assert.equal(outcomeOf(await host.call("spin", {})), "timeout");
          assert.equal((await host.sourceState("agent:loops")).state, "active", `after strike ${i}`);
        }
        assert.equal(outcomeOf(await host.call("spin", {})), "timeout");
        const state = await host.sourceState("agent:loops");
        assert.equal(state.state, "quarantined");
        const refused = await host.call("spin", {});
        assert.ok(!refused.ok);
        assert.equal(refused.error.kind, "quarantined");
        assert.match(refused.error.message, /quarantined since .* until .*: /);
        // Nothing ran: no isolate time and no heap were measured for it.
        assert.equal(refused.metrics.cpuMs, 0);
        assert.equal(refused.metrics.heapBytes, 0);
        assert.ok(events.some((e) => e.type === "quarantine" && e.source === "agent:loops"));
        const row = (await host.audit()).find((r) => r.source === "agent:loops");
        assert.equal(row?.totals.calls, 4);
        assert.equal(row?.totals.strikes, 3);
        assert.equal(row?.totals.outcomes.timeout, 3);
        assert.equal(row?.totals.outcomes.quarantined, 1);
        await host.release("agent:loops");
        assert.equal((await host.sourceState("agent:loops")).state, "active");
        assert.equal(outcomeOf(await host.call("spin", {})), "timeout");
      },
      { onEvent: (event) => events.push(event) },
    );
  });

  it("a tool's own error and invalid input are not strikes", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:errs", code: toolSource({ name: "errs", input: "z.object({ n: z.number() })", run: "throw new Error('no')" }) });
      for (let i = 0; i < 4; i++) assert.equal(outcomeOf(await host.call("errs", { n: 1 })), "tool_error");
      for (let i = 0; i < 4; i++) assert.equal(outcomeOf(await host.call("errs", { n: "x" })), "invalid_input");
      assert.equal((await host.sourceState("agent:errs")).state, "active");
      const row = (await host.audit()).find((r) => r.source === "agent:errs");
      assert.equal(row?.totals.outcomes.tool_error, 4);
      assert.equal(row?.totals.outcomes.invalid_input, 4);
      assert.equal(row?.totals.strikes, 0);
    });
  });

  it("an agent's tools keep their record across versions: resubmitting does not clear strikes", async () => {
    await withHost(async (host) => {
      const first = await host.author({ agent: "writer", code: looping("agent_spin") });
      assert.ok(first.ok);
      assert.equal(first.source, "agent:writer");
      assert.equal(outcomeOf(await host.call("agent_spin", {})), "timeout");
      assert.equal(outcomeOf(await host.call("agent_spin", {})), "timeout");
      // "fixed" and renamed: a new version of the same source
      const second = await host.author({ agent: "writer", code: looping("agent_spin_v2") });
      assert.ok(second.ok);
      assert.notEqual(second.version, first.version);
      assert.ok(host.tools().some((tool) => tool.name === "agent_spin"), "a tool the new module does not define stays (its own versions)");
      assert.equal(outcomeOf(await host.call("agent_spin_v2", {})), "timeout");
      assert.equal((await host.sourceState("agent:writer")).state, "quarantined");
      const refused = await host.author({ agent: "writer", code: toolSource({ name: "innocent", run: "return 1;" }) });
      assert.ok(!refused.ok);
      assert.equal(refused.error.kind, "quarantined");
      const report = await host.auditSource("agent:writer");
      assert.equal(report?.versions, 2);
      assert.equal(report?.totals.strikes, 3);
    });
  });

  it("authoring limits: source size, tools per agent, names of other sources", async () => {
    await withHost(
      async (host) => {
        const big = await host.author({ agent: "big", code: `// ${"x".repeat(3000)}\n${toolSource({ name: "big", run: "return 1;" })}` });
        assert.ok(!big.ok);
        assert.match(big.error.message, /larger than 2048 bytes/);
        const many = `import { defineTool } from "corral"; import { z } from "zod";
          export default [1, 2, 3].map((i) => defineTool({ name: "t" + i, description: "d", input: z.object({}), effects: [], run: () => i }));`;
        const tooMany = await host.author({ agent: "many", code: many });
        assert.ok(!tooMany.ok);
        assert.match(tooMany.error.message, /at most 2/);
        await host.load({ source: "host:owner", code: toolSource({ name: "taken", run: "return 1;" }) });
        const clash = await host.author({ agent: "thief", code: toolSource({ name: "taken", run: "return 2;" }) });
        assert.ok(!clash.ok);
        assert.match(clash.error.message, /"taken" \(owned by host:owner\)/);
        const badId = await host.author({ agent: "no spaces", code: toolSource({ name: "x", run: "return 1;" }) });
        assert.ok(!badId.ok);
      },
      { maxAgentSourceBytes: 2048, maxToolsPerAgent: 2 },
    );
  });

  it("create_tool: hidden unless exposed; compile errors come back with file:line:col; new tools are activated", async () => {
    await withHost(
      async (host) => {
        assert.ok(host.declarations().some((d) => d.name === "create_tool"));
        const broken = await host.call("create_tool", { code: "import { defineTool } from 'corral';\nconst x = ;\n" });
        assert.ok(!broken.ok);
        assert.equal(broken.error.kind, "compile_error");
        assert.match(broken.error.message, /agent:helper:2:\d+: /);
        const made = await host.call("create_tool", { code: toolSource({ name: "made_by_agent", input: "z.object({ a: z.number() })", run: "return input.a * 2;" }) });
        assert.ok(made.ok, JSON.stringify(made));
        assert.deepEqual(made.control?.add_tools, ["made_by_agent"]);
        // The ledger knows the agent's source from its first successful load, before any call.
        const known = await host.auditSource("agent:helper");
        assert.ok(known !== null, "the agent's source is unknown to the ledger right after create_tool");
        assert.equal(known.state.state, "active");
        assert.equal(known.versions, 1);
        assert.deepEqual(known.tools.map((t) => [t.tool, t.totals.calls, t.totals.lastCallAt]), [["made_by_agent", 0, null]]);
        assert.ok((await host.audit()).some((row) => row.source === "agent:helper" && row.totals.calls === 0));
        const used = await host.call("made_by_agent", { a: 21 });
        assert.ok(used.ok);
        assert.equal(used.output, "42");
        assert.equal(used.source, "agent:helper");
      },
      { createTool: { agent: "helper", exposure: "direct" } },
    );
    await withHost(
      async (host) => {
        assert.ok(!host.declarations().some((d) => d.name === "create_tool"));
        assert.equal(outcomeOf(await host.call("create_tool", { code: "x" })), "compile_error");
      },
      { createTool: { agent: "helper" } },
    );
  });

  it("a strike is committed before its result returns; other calls are written behind unless commitBeforeResult is \"all\"", async () => {
    /** The calls of `source` that another connection to the file sees at the moment the call returns (read synchronously). */
    const committedWhenAnswered = async (host: Host, tool: string, source: string, elsewhere: SqliteLedgerStore) => {
      const result = await host.call(tool, {});
      // readSource queries inside this turn of the event loop, before the host's next group commit.
      const detail = await elsewhere.readSource(source, { events: 0, strikes: 0 });
      return { outcome: outcomeOf(result), committed: detail?.tools.reduce((sum, entry) => sum + entry.totals.calls, 0) ?? 0 };
    };
    for (const commitBeforeResult of ["strikes", "all"] as const) {
      const dir = tempDir();
      const path = join(dir.path, "ledger.db");
      // Another connection to the same file sees only what has been committed, as a CLI would.
      const elsewhere = new SqliteLedgerStore({ path });
      try {
        await withHost(
          async (host) => {
            await host.load({ source: "agent:loops", code: looping("spin") });
            await host.load({ source: "agent:fine", code: toolSource({ name: "fine", run: "return 'fine';" }) });
            assert.deepEqual(await committedWhenAnswered(host, "spin", "agent:loops", elsewhere), { outcome: "timeout", committed: 1 }, commitBeforeResult);
            const fine = await committedWhenAnswered(host, "fine", "agent:fine", elsewhere);
            assert.deepEqual(fine, { outcome: "ok", committed: commitBeforeResult === "all" ? 1 : 0 }, commitBeforeResult);
            // Written behind, it commits within COMMIT_BEHIND_MS, or before any other
            // operation of the host's ledger: the host's own reads see it at once.
            assert.equal((await host.audit()).find((row) => row.source === "agent:fine")?.totals.calls, 1);
            assert.equal((await elsewhere.readSource("agent:fine", { events: 0, strikes: 0 }))?.tools[0]?.totals.calls, 1);
            // Left alone, a record written behind commits when its time is up.
            assert.equal(outcomeOf(await host.call("fine", {})), "ok");
            await sleep(COMMIT_BEHIND_MS + 5);
            assert.equal((await elsewhere.readSource("agent:fine", { events: 0, strikes: 0 }))?.tools[0]?.totals.calls, 2);
          },
          { ledger: { store: path }, commitBeforeResult },
        );
      } finally {
        await elsewhere.close();
        dir.remove();
      }
    }
  });

  it("a quarantine or a release made by another process on the same file counts for the host's next call", async () => {
    const dir = tempDir();
    const path = join(dir.path, "ledger.db");
    // The operator's CLI: another connection to the file.
    const operator = new Ledger({ store: path });
    try {
      await withHost(
        async (host) => {
          await host.load({ source: "agent:fine", code: toolSource({ name: "fine", run: "return 'fine';" }) });
          assert.equal(outcomeOf(await host.call("fine", {})), "ok");
          // The call's record commits first (it would otherwise read the operator's change and tell the host).
          await sleep(COMMIT_BEHIND_MS + 5);
          await operator.quarantine("agent:fine", { reason: "under review", actor: "ops" });
          // The host reads the file's change counter at most once a millisecond.
          await sleep(2);
          assert.equal(outcomeOf(await host.call("fine", {})), "quarantined");
          await sleep(COMMIT_BEHIND_MS + 5);
          await operator.release("agent:fine", { actor: "ops" });
          await sleep(2);
          assert.equal(outcomeOf(await host.call("fine", {})), "ok");
        },
        { ledger: { store: path } },
      );
    } finally {
      await operator.close();
      dir.remove();
    }
  });

  it("close() while calls run: each is answered and recorded before the ledger closes", async () => {
    const dir = tempDir();
    const path = join(dir.path, "ledger.db");
    const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: path } });
    try {
      assert.ok((await host.load({ source: "agent:slow", code: toolSource({ name: "slow", run: "await new Promise((r) => setTimeout(r, 10_000)); return 'late';" }) })).ok);
      const calls = [host.call("slow", {}, { timeoutMs: 20_000 }), host.call("slow", {}, { timeoutMs: 20_000 })];
      // Both reach the worker (one runs, one waits behind it) before the host closes.
      await sleep(300);
      await host.close();
      const kinds = (await Promise.all(calls)).map(outcomeOf);
      assert.ok(kinds.every((kind) => kind !== "ok"), kinds.join(", "));
      const ledger = new Ledger({ store: path });
      try {
        const report = await ledger.sourceReport("agent:slow");
        assert.equal(report?.totals.calls, 2, `both calls are in the ledger: ${JSON.stringify(report?.totals.outcomes)}`);
      } finally {
        await ledger.close();
      }
    } finally {
      await host.close();
      dir.remove();
    }
  });
});
