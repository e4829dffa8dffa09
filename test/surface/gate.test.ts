/**
 * The gate and the effect policy: who decides whether a call runs, and that
 * a slow gate never eats into the tool's own time.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf, type GateCall } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

const sleeper = (name: string, effects: string) =>
  toolSource({ name, extra: `effects: ${effects}, limits: { timeoutMs: 400 },`, run: "await new Promise((r) => setTimeout(r, 250)); return 'slept';" }).replace("effects: [],\n", "");

describe("the gate", { timeout: 120_000 }, () => {
  it("a slow gate does not count against the tool's time limit, and the host serves other calls meanwhile", async () => {
    let release: () => void = () => undefined;
    const gateOpen = new Promise<void>((resolve) => (release = resolve));
    const asked: string[] = [];
    await withHost(
      async (host) => {
        assert.ok((await host.load({ source: "host:slow", code: sleeper("slow_gated", "['read']") })).ok);
        assert.ok((await host.load({ source: "agent:quick", code: toolSource({ name: "quick", run: "return 'quick';" }) })).ok);
        const gated = host.call("slow_gated", {});
        // The gate holds slow_gated far longer than its 400 ms limit.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const quick = await host.call("quick", {});
        assert.equal(outcomeOf(quick), "ok");
        await new Promise((resolve) => setTimeout(resolve, 700));
        release();
        const result = await gated;
        // Held 800 ms at the gate, a 400 ms tool still answers: its clock
        // started when the gate let it through.
        assert.equal(outcomeOf(result), "ok", JSON.stringify(result));
        assert.deepEqual(asked, ["slow_gated", "quick"]);
      },
      {
        workers: 1,
        beforeToolCall: async (call: GateCall) => {
          asked.push(call.tool);
          if (call.tool === "slow_gated") await gateOpen;
          return { action: "allow" };
        },
      },
    );
  });

  it("a block is a blocked result with the gate's reason, and a gate that throws blocks", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:a", code: toolSource({ name: "refused", run: "return 1;" }) });
        await host.load({ source: "agent:b", code: toolSource({ name: "explodes", run: "return 1;" }) });
        const refused = await host.call("refused", { why: 1 });
        assert.ok(!refused.ok);
        assert.equal(refused.error.kind, "blocked");
        assert.match(refused.error.message, /not today/);
        const exploded = await host.call("explodes", {});
        assert.ok(!exploded.ok);
        assert.equal(exploded.error.kind, "blocked");
        assert.match(exploded.error.message, /gate failed \(boom\)/);
      },
      {
        beforeToolCall: (call) => {
          if (call.tool === "explodes") throw new Error("boom");
          return { action: "block", reason: "not today" };
        },
      },
    );
  });

  it("the gate sees the call: tool, source, input, effects and the policy's answer", async () => {
    const seen: GateCall[] = [];
    await withHost(
      async (host) => {
        await host.load({ source: "agent:pure", code: toolSource({ name: "pure_one", input: "z.object({ n: z.number() })", run: "return input.n;" }) });
        const result = await host.call("pure_one", { n: 7 });
        assert.equal(outcomeOf(result), "ok");
        assert.equal(seen.length, 1);
        assert.equal(seen[0]?.tool, "pure_one");
        assert.equal(seen[0]?.source, "agent:pure");
        assert.deepEqual(seen[0]?.input, { n: 7 });
        assert.deepEqual(seen[0]?.effects, []);
        assert.equal(seen[0]?.policy, "allow");
      },
      { beforeToolCall: (call) => (seen.push(call), { action: "allow" }) },
    );
  });

  it("the gate's copy of the input is made when it reads it, once; the default gate never pays for one", async () => {
    const input = { marker: "gate-input-copy-7f3a" };
    const text = JSON.stringify(input);
    /** How many times the host parsed exactly this input's JSON while `fn` ran. */
    const parsesDuring = async (fn: () => Promise<void>): Promise<number> => {
      const original = JSON.parse;
      let count = 0;
      JSON.parse = ((source: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
        if (source === text) count++;
        return original(source, reviver);
      }) as typeof JSON.parse;
      try {
        await fn();
      } finally {
        JSON.parse = original;
      }
      return count;
    };
    const callOnce = (options: Parameters<typeof withHost>[1]) =>
      parsesDuring(() =>
        withHost(async (host) => {
          await host.load({ source: "agent:marker", code: toolSource({ name: "marker", input: "z.object({ marker: z.string() })", run: "return input.marker;" }) });
          assert.equal(outcomeOf(await host.call("marker", input)), "ok");
        }, options),
      );
    assert.equal(await callOnce({}), 0, "the default gate does not read the input");
    assert.equal(await callOnce({ beforeToolCall: () => ({ action: "allow" }) }), 0, "a gate that does not read it");
    const seen: unknown[] = [];
    const read = await callOnce({ beforeToolCall: (call) => (seen.push(call.input, call.input), { action: "allow" }) });
    assert.equal(read, 1, "read twice, parsed once");
    assert.deepEqual(seen, [input, input]);
    assert.notEqual(seen[0], input, "a copy, not the caller's object");
  });
});

describe("the effect policy", { timeout: 120_000 }, () => {
  it("by default, agent and plugin tools run pure; any effect is blocked without a gate; host tools are allowed", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:fx", code: sleeper("agent_reads", "['read']") });
      await host.load({ source: "host:fx", code: sleeper("host_reads", "['read']") });
      await host.load({ source: "agent:pure", code: toolSource({ name: "agent_pure", run: "return 'pure';" }) });
      const agent = await host.call("agent_reads", {});
      assert.ok(!agent.ok);
      assert.equal(agent.error.kind, "blocked");
      assert.match(agent.error.message, /read/);
      assert.equal(outcomeOf(await host.call("host_reads", {})), "ok");
      assert.equal(outcomeOf(await host.call("agent_pure", {})), "ok");
    });
  });

  it("missing or unknown effects are judged as the most dangerous: every effect", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:known", code: sleeper("reads_only", "['read']") });
        await host.load({ source: "agent:unknown", code: sleeper("reads_and_teleports", "['read', 'teleport']") });
        await host.load({ source: "agent:missing", code: sleeper("declares_nothing", "undefined") });
        assert.equal(outcomeOf(await host.call("reads_only", {})), "ok");
        assert.equal(outcomeOf(await host.call("reads_and_teleports", {})), "blocked");
        assert.equal(outcomeOf(await host.call("declares_nothing", {})), "blocked");
        const info = host.tools().find((tool) => tool.name === "declares_nothing");
        assert.equal(info?.effects, null);
      },
      { effects: { agent: { read: "allow" } } },
    );
  });

  it("deny never reaches the gate", async () => {
    let asked = 0;
    await withHost(
      async (host) => {
        await host.load({ source: "host:exec", code: sleeper("runs_things", "['exec']") });
        const result = await host.call("runs_things", {});
        assert.equal(outcomeOf(result), "blocked");
        assert.equal(asked, 0);
      },
      { effects: { host: { exec: "deny" } }, beforeToolCall: () => (asked++, { action: "allow" }) },
    );
  });

  it("a blocked call is not a strike", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:fx", code: sleeper("agent_reads", "['read']") });
      for (let i = 0; i < 4; i++) assert.equal(outcomeOf(await host.call("agent_reads", {})), "blocked");
      const state = await host.sourceState("agent:fx");
      assert.equal(state.state, "active");
      const row = (await host.audit()).find((r) => r.source === "agent:fx");
      assert.equal(row?.totals.calls, 4);
      assert.equal(row?.totals.strikes, 0);
    });
  });
});
