/**
 * @module test/hostile/scopes.test
 * What crosses calls in each isolation mode (SECURITY.md, "What crosses
 * calls"), one test per promise. The tool (cases/_scope-carry-tool.ts)
 * reports what earlier calls left in a global, a module variable,
 * Object.prototype, a replaced built-in, zod's global registry and an interval
 * left running, then leaves its own secret in all of them.
 *
 * - Default (`isolation: "scope"`): a call never sees what a call of another
 *   scope left, even on the same worker; calls of one scope may share a warm
 *   isolate, and then do see it (that is the mode's promise and its limit).
 * - `isolation: "call"` (host, source kind or source): nothing carries over,
 *   even within one scope.
 * - Timers never outlive their call, in any mode.
 * - Warm isolates stay bounded with many scopes (LRU across scopes).
 * - The conversation loop gives each conversation its own scope.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf, runConversation, type Host, type HostOptions, type Model, type ToolResult } from "../../src/index.js";
import { parseMessage } from "../../src/loop/messages.js";
import { withHost } from "../helpers/host.js";
import { caseFile } from "./harness.js";

type Seen = { global: string | null; module: string | null; prototype: string | null; builtin: string | null; zod: string | null; timer: string | null };
const NOTHING: Seen = { global: null, module: null, prototype: null, builtin: null, zod: null, timer: null };
const PLACES = Object.keys(NOTHING) as Array<keyof Seen>;

function seenOf(result: ToolResult): Seen {
  assert.equal(outcomeOf(result), "ok", JSON.stringify(result));
  return (result.ok ? (result.structured as { seen: Seen }).seen : NOTHING) as Seen;
}

async function carry(host: Host, secret: string, scope?: string): Promise<Seen> {
  return seenOf(await host.call("scope_carry", { secret }, scope === undefined ? {} : { scope }));
}

async function withCarry(options: HostOptions, fn: (host: Host) => Promise<void>, source?: string): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: caseFile("_scope-carry-tool.ts"), ...(source === undefined ? {} : { source }) });
    assert.ok(loaded.ok, JSON.stringify(loaded));
    await fn(host);
  }, options);
}

describe("isolation scopes: what crosses calls", { timeout: 170_000 }, () => {
  it("default mode: nothing one scope's call leaves is seen by another scope's call, on the same worker, in any place", async () => {
    await withCarry({ workers: 1 }, async (host) => {
      assert.deepEqual(await carry(host, "alice-1", "tenant:alice"), NOTHING);
      assert.deepEqual(await carry(host, "bob-1", "tenant:bob"), NOTHING, "bob's call saw what alice's left");
      assert.deepEqual(await carry(host, "carol-1", "tenant:carol"), NOTHING);
      // And the default scope is a scope of its own.
      assert.deepEqual(await carry(host, "default-1"), NOTHING);
      // Back to alice: her scope's warm isolate, with what her own call left
      // (the mode lets one scope's calls share; timers still never survive).
      const again = await carry(host, "alice-2", "tenant:alice");
      assert.deepEqual(again, { ...NOTHING, global: "alice-1", module: "alice-1", prototype: "alice-1", builtin: "alice-1", zod: "alice-1" });
    });
  });

  it("default mode: the isolate a load left, once a scope's, is never the default scope's too (whatever the tool's memory limit)", async () => {
    // The load's describe isolate is kept under the key without scope; the first scope's call takes it. It must leave that
    // key, where a call of the default scope ("") would take it as its own. Tools at the load's memory and below it.
    for (const memoryMb of [64, 32]) {
      await withHost(async (host) => {
        const code = `import { defineTool } from "corral"; import { z } from "zod";
export default defineTool({ name: "left_mark", description: "reports and leaves a mark", input: z.object({ mark: z.string() }), effects: [],
  limits: { memoryMb: ${memoryMb} }, run: ({ mark }) => { const seen = globalThis.mark ?? null; globalThis.mark = mark; return { seen }; } });`;
        assert.ok((await host.load({ source: "agent:left-mark", code })).ok);
        const seen = async (mark: string, scope?: string) => {
          const result = await host.call("left_mark", { mark }, scope === undefined ? {} : { scope });
          assert.ok(result.ok, JSON.stringify(result));
          return (result.ok ? (result.structured as { seen: string | null }) : { seen: "failed" }).seen;
        };
        assert.equal(await seen("alice", "tenant:alice"), null);
        assert.equal(await seen("default"), null, `${memoryMb} MB: the default scope's call got alice's isolate`);
        assert.equal(await seen("bob", "tenant:bob"), null);
        assert.equal(await seen("alice-2", "tenant:alice"), "alice");
      }, { workers: 1 });
    }
  });

  it("default mode: interleaved calls of many scopes on two workers each see only their own scope's leftovers", async () => {
    await withCarry({ workers: 2 }, async (host) => {
      const scopes = ["a", "b", "c", "d"];
      const calls = Array.from({ length: 24 }, (_, i) => {
        const scope = scopes[i % scopes.length] as string;
        return host.call("scope_carry", { secret: `${scope}-${i}` }, { scope: `user:${scope}` }).then((result) => ({ scope, seen: seenOf(result) }));
      });
      for (const { scope, seen } of await Promise.all(calls)) {
        for (const place of PLACES) {
          const value = seen[place];
          if (value === null || value === "ticked") continue;
          for (const part of value.split(",")) assert.ok(part.startsWith(`${scope}-`), `a call of scope ${scope} saw ${place} = ${value}`);
        }
      }
    });
  });

  it('isolation: "call": nothing carries over even within one scope, in any place', async () => {
    await withCarry({ workers: 1, isolation: "call" }, async (host) => {
      for (let i = 0; i < 4; i++) assert.deepEqual(await carry(host, `same-${i}`, "tenant:same"), NOTHING, `call ${i} saw an earlier call's data`);
      assert.deepEqual(await carry(host, "unscoped-1"), NOTHING);
      assert.deepEqual(await carry(host, "unscoped-2"), NOTHING);
      const result = await host.call("scope_carry", { secret: "x" });
      assert.equal(result.warm, false, "a fresh call's isolate is never warm");
    });
  });

  it('isolation per source kind and per source id: the most specific wins', async () => {
    await withCarry({ workers: 1, isolation: { default: "call", agent: "scope" } }, async (host) => {
      // A plugin source (the default here is "call"): nothing carries over.
      assert.deepEqual(await carry(host, "p-1", "s"), NOTHING);
      assert.deepEqual(await carry(host, "p-2", "s"), NOTHING);
    });
    await withCarry({ workers: 1, isolation: { plugin: "call", sources: { "agent:sharing": "scope" } } }, async (host) => {
      assert.deepEqual(await carry(host, "s-1", "s"), NOTHING);
      assert.equal((await carry(host, "s-2", "s")).global, "s-1", "the source's own setting (scope) wins over its kind's");
    }, "agent:sharing");
  });

  it("timers never outlive their call, in the default mode either", async () => {
    await withCarry({ workers: 1 }, async (host) => {
      await carry(host, "t-1", "timers");
      for (let i = 2; i <= 4; i++) assert.equal((await carry(host, `t-${i}`, "timers")).timer, null, "an interval of an earlier call fired in a later one");
    });
  });

  it("warm isolates stay bounded with many scopes: LRU across scopes (the first scope's isolate is evicted)", async (t) => {
    await withCarry({ workers: 1, maxWarmIsolates: 4 }, async (host) => {
      const started = performance.now();
      const first = await host.call("scope_carry", { secret: "first" }, { scope: "scope:0" });
      assert.equal(outcomeOf(first), "ok");
      for (let i = 1; i <= 40; i++) assert.deepEqual(await carry(host, `s${i}`, `scope:${i}`), NOTHING);
      const back = await host.call("scope_carry", { secret: "again" }, { scope: "scope:0" });
      assert.equal(back.warm, false, "scope:0's isolate should have been evicted by 40 other scopes with maxWarmIsolates 4");
      assert.deepEqual(seenOf(back), NOTHING);
      t.diagnostic(`42 calls in 41 scopes: ${Math.round(performance.now() - started)} ms`);
    });
  });

  it("the conversation loop gives each conversation its own scope, unless told one", async () => {
    let turn = 0;
    const model: Model = {
      async createMessage() {
        turn += 1;
        const content = turn % 2 === 1 ? [{ type: "tool_use", id: `t${turn}`, name: "scope_carry", input: { secret: `conv-${turn}` } }] : [{ type: "text", text: "done" }];
        return parseMessage({ id: `m${turn}`, type: "message", role: "assistant", model: "m", content, stop_reason: turn % 2 === 1 ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
      },
    };
    const request = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "go" }] };
    await withCarry({ workers: 1 }, async (host) => {
      const first = await runConversation(model, request, { host });
      const second = await runConversation(model, request, { host });
      assert.deepEqual(seenOf(first.toolCalls[0]!.result), NOTHING);
      assert.deepEqual(seenOf(second.toolCalls[0]!.result), NOTHING, "a conversation saw what another conversation's call left");
      const shared1 = await runConversation(model, request, { host, scope: "user:dana" });
      const shared2 = await runConversation(model, request, { host, scope: "user:dana" });
      assert.deepEqual(seenOf(shared1.toolCalls[0]!.result), NOTHING);
      assert.equal(seenOf(shared2.toolCalls[0]!.result).global, "conv-5", "two conversations given one scope share it");
    });
  });

  it("a scope is checked: control characters or over 256 characters are refused", async () => {
    await withCarry({ workers: 1 }, async (host) => {
      await assert.rejects(host.call("scope_carry", { secret: "x" }, { scope: "a\u0000b" }), /invalid_argument/);
      await assert.rejects(host.call("scope_carry", { secret: "x" }, { scope: "x".repeat(257) }), /invalid_argument/);
    });
  });
});
