/**
 * @module test/capabilities/talk-back.test
 * A tool's talk-back through the library (host.call's handlers), end to end:
 * real host, worker and isolates, tools written as an agent would. Progress
 * and log messages reach the handlers and the events, within the call's
 * count, and never fail a tool; questions and samples need their effect
 * (and sampling its grant and budget), stop the call's clock while the
 * caller answers, are refused naming why when nobody can answer, and are
 * in the audit. Results carry audio, resources and links.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { SqliteCapabilityStore } from "../../src/capabilities/index.js";
import { createHost, type CapabilityCounter, type HostEvent, type HostOptions, type ToolLog, type ToolProgress, type ToolResult } from "../../src/index.js";
import { childPids, assertNoWorkersLeft, tempDir } from "../helpers/host.js";

const tool = (name: string, effects: string[], body: string, limits = "") => `import { defineTool, toolResult } from "corral";
import { z } from "zod";
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "talk-back test tool",
  input: z.object({ n: z.number().optional() }),
  effects: ${JSON.stringify(effects)},
  ${limits}
  async run(input, ctx) { ${body} },
});`;

type Uses = (source: string) => Promise<CapabilityCounter[]>;

async function withTalkHost(fn: (host: ReturnType<typeof createHost>, events: HostEvent[], uses: Uses) => Promise<void>, extra: HostOptions = {}): Promise<void> {
  const before = childPids();
  const dir = tempDir("corral-talk-");
  const events: HostEvent[] = [];
  const host = createHost({
    workers: 1,
    cacheDir: join(dir.path, "cache"),
    ledger: { store: join(dir.path, "ledger.db") },
    effects: { agent: { sample_model: "allow" } },
    capabilities: { sampling: { maxTokensPerCall: 100, maxTokensPerHour: 200 } },
    onEvent: (event) => events.push(event),
    ...extra,
  });
  const store = new SqliteCapabilityStore(join(dir.path, "ledger.db"));
  // Uses are written behind the call: wait for the host's writes by closing nothing, only reading after a beat.
  const uses: Uses = async (source) => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return (await store.readUses(source, 50)).counters;
  };
  try {
    await fn(host, events, uses);
  } finally {
    await host.close();
    await store.close();
    dir.remove();
    await assertNoWorkersLeft(before);
  }
}

async function load(host: ReturnType<typeof createHost>, name: string, effects: string[], body: string, limits = ""): Promise<void> {
  const loaded = await host.load({ source: `agent:${name}`, code: tool(name, effects, body, limits) });
  assert.ok(loaded.ok, JSON.stringify(loaded));
}

const structured = (result: ToolResult) => {
  assert.ok(result.ok, JSON.stringify(result));
  return result.ok ? result.structured : undefined;
};

/** The tool catches a refusal and answers its code and message. */
const caught = (expression: string) => `try { return { ok: true, value: await ${expression} }; } catch (error) { return { ok: false, name: error.name, code: error.code, message: error.message }; }`;

describe("talk-back through the library", { timeout: 150_000 }, () => {
  it("progress and log messages reach the call's handlers and the host's events, in order, and the audit counts them", async () => {
    await withTalkHost(async (host, events, uses) => {
      await load(host, "stepper", [], `
        for (let i = 1; i <= 3; i++) await ctx.progress(i, 3, "step " + i);
        ctx.log("info", { done: true, items: [1, 2] });
        await ctx.log("warning", "careful", "stepper.core");
        return "done";`);
      const progress: ToolProgress[] = [];
      const logs: ToolLog[] = [];
      const result = await host.call("stepper", {}, { onProgress: (p) => progress.push(p), onLog: (l) => logs.push(l) });
      assert.equal(result.ok && result.output, "done");
      assert.deepEqual(progress.map((p) => [p.progress, p.total, p.message]), [[1, 3, "step 1"], [2, 3, "step 2"], [3, 3, "step 3"]]);
      assert.ok(progress.every((p) => p.callId === result.callId && p.tool === "stepper" && p.source === "agent:stepper"));
      assert.deepEqual(logs.map((l) => [l.level, l.data, l.logger]), [["info", { done: true, items: [1, 2] }, undefined], ["warning", "careful", "stepper.core"]]);
      assert.equal(events.filter((e) => e.type === "tool_progress").length, 3);
      assert.deepEqual(events.filter((e) => e.type === "tool_log").map((e) => e.type === "tool_log" && e.level), ["info", "warning"]);
      // Without handlers the tool runs the same; the events still fire.
      const quiet = await host.call("stepper", {});
      assert.equal(quiet.ok, true);
      assert.equal(events.filter((e) => e.type === "tool_progress").length, 6);
      const counters = await uses("agent:stepper");
      const noticeUses = counters.filter((c) => c.tool === "stepper" && c.effect === "-" && c.outcome === "ok");
      // One record per call and kind: two calls, progress and log each.
      assert.equal(noticeUses.reduce((sum, c) => sum + c.uses, 0), 4, JSON.stringify(counters));
      assert.match(noticeUses[0]?.lastTarget ?? "", /^\d+ notices?$/);
    });
  });

  it("a bad notice is the tool's TypeError; a flood past 1000 notices is dropped, never a failure; a handler that throws is not the tool's problem", async () => {
    await withTalkHost(async (host) => {
      await load(host, "noisy", [], `
        let typeErrors = 0;
        try { ctx.progress(Number.NaN); } catch (e) { if (e instanceof TypeError) typeErrors++; }
        try { ctx.log("loud", 1); } catch (e) { if (e instanceof TypeError) typeErrors++; }
        for (let i = 0; i < 1200; i++) ctx.progress(i);
        await ctx.log("error", "x".repeat(100000));
        return { typeErrors };`, "limits: { timeoutMs: 20000 },");
      let seen = 0;
      let longest = 0;
      const result = await host.call("noisy", {}, {
        onProgress: () => {
          seen++;
          throw new Error("a broken screen");
        },
        onLog: (log) => {
          longest = JSON.stringify(log.data).length;
        },
      });
      assert.deepEqual(structured(result), { typeErrors: 2 });
      assert.equal(seen, 1000);
      // The 1001st notice and later are dropped: the cut log message never came.
      assert.equal(longest, 0);
    });
  });

  it("a long log message is cut to its cap with a note", async () => {
    await withTalkHost(async (host) => {
      await load(host, "verbose", [], `await ctx.log("debug", "y".repeat(100000)); return "ok";`);
      const logs: ToolLog[] = [];
      await host.call("verbose", {}, { onLog: (log) => logs.push(log) });
      const data = String(logs[0]?.data);
      assert.ok(data.length < 16 * 1024 && data.includes("[corral: cut from 100000 characters]"), data.slice(-80));
    });
  });

  it("ctx.elicit asks elicitUser with the tool's form; the call's clock stops meanwhile; a zod form's answer is parsed", async () => {
    await withTalkHost(async (host, _events, uses) => {
      await load(host, "asker", ["ask_user"], `
        const form = z.object({ name: z.string(), age: z.number().int().default(30), verified: z.boolean().optional() });
        const answer = await ctx.elicit("Who are you?", form);
        const raw = await ctx.elicit("Pick one", { type: "object", properties: { color: { type: "string", enum: ["red", "blue"] } }, required: ["color"] });
        return { answer, raw };`, "limits: { timeoutMs: 1000 },");
      const questions: unknown[] = [];
      const result = await host.call("asker", {}, {
        elicitUser: async (question, context) => {
          questions.push({ ...question, tool: context.tool, source: context.source });
          // Longer than the tool's whole time limit: a person's minutes never count against the call.
          await new Promise((resolve) => setTimeout(resolve, 700));
          return question.message === "Who are you?" ? { action: "accept", content: { name: "Ada" } } : { action: "decline" };
        },
      });
      assert.deepEqual(structured(result), { answer: { action: "accept", content: { name: "Ada", age: 30 } }, raw: { action: "decline" } });
      const first = questions[0] as { message: string; requestedSchema: { type: string; properties: Record<string, { type: string; default?: unknown }>; required?: string[] }; tool: string; source: string };
      assert.equal(first.message, "Who are you?");
      assert.equal(first.tool, "asker");
      assert.equal(first.source, "agent:asker");
      assert.equal(first.requestedSchema.type, "object");
      assert.equal(first.requestedSchema.properties.age?.type, "integer");
      assert.equal(first.requestedSchema.properties.age?.default, 30);
      assert.deepEqual(first.requestedSchema.required, ["name"]);
      assert.equal((await uses("agent:asker")).find((c) => c.effect === "ask_user" && c.outcome === "ok")?.uses, 2);
    });
  });

  it("ctx.elicit is refused: undeclared, nobody to ask, a malformed form, an answer that is not one; the policy can deny it", async () => {
    await withTalkHost(async (host) => {
      await load(host, "undeclared_asker", [], caught(`ctx.elicit("hi", { type: "object", properties: {} })`));
      await load(host, "asker2", ["ask_user"], caught(`ctx.elicit("hi", { type: "object", properties: { a: { type: "string" } } })`));
      await load(host, "bad_form", ["ask_user"], caught(`ctx.elicit("hi", { type: "object", properties: { a: { type: "object" } } })`));
      const undeclared = structured(await host.call("undeclared_asker", {}, { elicitUser: async () => ({ action: "accept", content: {} }) })) as { code: string; message: string };
      assert.equal(undeclared.code, "undeclared");
      assert.match(undeclared.message, /ask_user/);
      const nobody = structured(await host.call("asker2", {})) as { code: string; message: string };
      assert.equal(nobody.code, "refused");
      assert.match(nobody.message, /elicitUser/);
      const malformed = structured(await host.call("bad_form", {}, { elicitUser: async () => ({ action: "accept", content: {} }) })) as { code: string };
      assert.equal(malformed.code, "invalid");
      const nonsense = structured(await host.call("asker2", {}, { elicitUser: async () => ({ action: "sure", content: { a: { nested: true } } }) as never })) as { code: string };
      assert.equal(nonsense.code, "failed");
      const thrown = structured(await host.call("asker2", {}, { elicitUser: async () => { throw new Error("the client went away"); } })) as { code: string; message: string };
      assert.equal(thrown.code, "failed");
      assert.match(thrown.message, /the client went away/);
    });
    await withTalkHost(async (host) => {
      await load(host, "denied_asker", ["ask_user"], caught(`ctx.elicit("hi", { type: "object", properties: {} })`));
      let asked = 0;
      const denied = await host.call("denied_asker", {}, { elicitUser: async () => ((asked += 1), { action: "accept", content: {} }) });
      // A denied effect is refused before the tool runs, as any other effect's.
      assert.ok(!denied.ok && denied.error.kind === "blocked" && /denies/.test(denied.error.message), JSON.stringify(denied));
      assert.equal(asked, 0);
    }, { effects: { agent: { ask_user: "deny" } } });
  });

  it("ctx.sample asks sampleModel within the call's and the source's token budgets; without a grant or a model it is refused", async () => {
    await withTalkHost(async (host, _events, uses) => {
      await load(host, "sampler", ["sample_model"], `
        const out = [];
        for (const maxTokens of [60, 60]) {
          try { out.push((await ctx.sample({ messages: "Say hi", maxTokens, systemPrompt: "brief" })).content.text); }
          catch (error) { out.push(error.code + ": " + error.message); }
        }
        return out;`);
      const asked: unknown[] = [];
      const sampleModel = async (request: unknown) => {
        asked.push(request);
        return { role: "assistant" as const, content: { type: "text" as const, text: "hi" }, model: "test-model", stopReason: "endTurn" };
      };
      const first = structured(await host.call("sampler", {}, { sampleModel })) as string[];
      assert.equal(first[0], "hi");
      assert.match(first[1] ?? "", /^too_large: .*maxTokensPerCall/);
      assert.deepEqual(asked[0], { messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 60, systemPrompt: "brief" });
      // Each call is charged its first sample's 60 (the second passes the call's 100 and is charged nothing): the hour's 200 hold three.
      await host.call("sampler", {}, { sampleModel });
      await host.call("sampler", {}, { sampleModel });
      const spent = structured(await host.call("sampler", {}, { sampleModel })) as string[];
      assert.match(spent[0] ?? "", /^too_large: .*maxTokensPerHour/);
      assert.equal(asked.length, 3);
      const noModel = structured(await host.call("sampler", {})) as string[];
      assert.match(noModel[0] ?? "", /^refused: .*sampleModel/);
      assert.equal((await uses("agent:sampler")).find((c) => c.effect === "sample_model" && c.outcome === "ok")?.uses, 3);
    });
    await withTalkHost(async (host) => {
      await load(host, "ungranted", ["sample_model"], caught(`ctx.sample({ messages: "hi", maxTokens: 5 })`));
      const refused = structured(await host.call("ungranted", {}, { sampleModel: async () => ({ role: "assistant", content: { type: "text", text: "x" }, model: "m" }) })) as { code: string; message: string };
      assert.equal(refused.code, "not_granted");
      assert.match(refused.message, /capabilities\.sampling/);
    }, { capabilities: {} });
  });

  it("a result carries audio, embedded resources and resource links; a bad one is the tool's error", async () => {
    await withTalkHost(async (host) => {
      await load(host, "rich", [], `return toolResult({
        text: "see attached",
        audio: [{ mimeType: "audio/wav", data: "UklGRg==" }],
        resources: [{ uri: "file:///notes/a.md", mimeType: "text/markdown", text: "# alpha" }, { uri: "https://example.com/b.bin", blob: "AAEC" }],
        links: [{ uri: "https://example.com/c", name: "c", description: "the third" }],
      });`);
      await load(host, "bad_audio", [], `return toolResult({ audio: [{ mimeType: "audio/x-made-up", data: "AAAA" }] });`);
      const rich = await host.call("rich", {});
      assert.ok(rich.ok, JSON.stringify(rich));
      assert.equal(rich.ok && rich.audio?.[0]?.mimeType, "audio/wav");
      assert.deepEqual(rich.ok && rich.resources?.map((r) => r.uri), ["file:///notes/a.md", "https://example.com/b.bin"]);
      assert.equal(rich.ok && rich.links?.[0]?.name, "c");
      const bad = await host.call("bad_audio", {});
      assert.ok(!bad.ok && bad.error.kind === "tool_error" && /audio type "audio\/x-made-up"/.test(bad.error.message), JSON.stringify(bad));
    });
  });
});
