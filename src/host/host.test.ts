import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost, toolSource } from "../../test/helpers/host.js";
import { sharedHost } from "../../test/hostile/shared-host.js";
import { outcomeOf, ToolResult } from "../index.js";

describe("createHost end to end", { timeout: 60_000 }, () => {
  it("loads an agent tool from text and calls it", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:demo", code: toolSource({ name: "echo", input: "z.object({ text: z.string() })", run: "return { echoed: input.text };" }) });
      assert.equal(loaded.ok, true);
      const result = await host.call("echo", { text: "hi" });
      assert.equal(result.ok, true);
      assert.ok(result.ok && JSON.stringify(result.structured) === '{"echoed":"hi"}');
    });
  });
});

/** Two tools in one module, as an array default export. */
const ARRAY_MODULE = `import { defineTool } from "corral";
import { z } from "zod";
let moduleCounter = 0;
const setter = defineTool({
  name: "globals_set",
  description: "sets a global and module state",
  input: z.object({}),
  effects: [],
  run() {
    (globalThis as any).sharedByAccident = "set by globals_set";
    moduleCounter += 10;
    return { global: typeof (globalThis as any).sharedByAccident, moduleCounter };
  },
});
const getter = defineTool({
  name: "globals_get",
  description: "reads the global and module state",
  input: z.object({}),
  effects: [],
  run() {
    return { global: typeof (globalThis as any).sharedByAccident, moduleCounter };
  },
});
export default [setter, getter];
`;

/** Two tools as named exports (one also the default: counted once). */
const NAMED_MODULE = `import { defineTool } from "corral";
import { z } from "zod";
export const upper = defineTool({
  name: "named_upper",
  description: "upper-cases",
  input: z.object({ s: z.string() }),
  effects: [],
  run: ({ s }) => s.toUpperCase(),
});
export const lower = defineTool({
  name: "named_lower",
  description: "lower-cases",
  input: z.object({ s: z.string() }),
  effects: ["read"],
  exposure: "deferred",
  run: ({ s }) => s.toLowerCase(),
});
export default upper;
export const notATool = { name: "not_a_tool" };
`;

describe("host calls: results, channels and failures", { timeout: 120_000 }, () => {
  const shared = sharedHost({ workers: 1 });
  before(async () => {
    await shared.start();
    const host = shared.host;
    const sources: [string, string][] = [
      ["agent:text", toolSource({ name: "say_text", run: "return 'plain words';" })],
      ["agent:structured", toolSource({ name: "say_data", run: "return { n: 1, list: ['a'] };" })],
      [
        "agent:channels",
        `import { defineTool, toolResult } from "corral";
import { z } from "zod";
export default defineTool({
  name: "channels",
  description: "answers on every channel",
  input: z.object({}),
  effects: [],
  run() {
    return toolResult({
      text: "summary for the model",
      structured: { rows: 2 },
      details: { debug: [1, 2] },
      control: { add_tools: ["later_tool"], terminate: true },
      images: [{ mimeType: "image/png", data: "iVBORw0KGgo=" }],
    });
  },
});
`,
      ],
      [
        "agent:typed",
        toolSource({
          name: "typed_output",
          input: "z.object({ good: z.boolean() })",
          extra: "output: z.object({ count: z.number() }),",
          run: "return input.good ? { count: 3 } : { count: 'three' };",
        }),
      ],
      ["agent:strict", toolSource({ name: "strict_input", input: "z.object({ n: z.number().int().min(0), tag: z.string() })", run: "return input.n;" })],
      ["agent:thrower", toolSource({ name: "thrower", run: "throw new TypeError('the tool gave up');" })],
      ["agent:array", ARRAY_MODULE],
      ["agent:named", NAMED_MODULE],
      [
        "agent:remember",
        toolSource({
          name: "remember",
          input: "z.object({ spin: z.boolean().default(false) })",
          extra: "limits: { timeoutMs: 300 },",
          run: "if (input.spin) { for (;;) {} } const g = globalThis as any; g.calls = (g.calls ?? 0) + 1; return g.calls;",
        }),
      ],
    ];
    for (const [source, code] of sources) {
      const loaded = await host.load({ source, code });
      assert.ok(loaded.ok, `${source}: ${JSON.stringify(loaded)}`);
    }
  });
  after(() => shared.stop());

  it("every result carries metrics: wallMs and cpuMs ≥ 0, heapBytes > 0, and parses as a ToolResult", async () => {
    for (const name of ["say_text", "say_data", "thrower"]) {
      const result = await shared.host.call(name, {});
      assert.ok(ToolResult.safeParse(result).success, JSON.stringify(result));
      assert.ok(result.metrics.wallMs > 0, `${name}: wallMs ${result.metrics.wallMs}`);
      assert.ok(result.metrics.cpuMs >= 0, `${name}: cpuMs ${result.metrics.cpuMs}`);
      assert.ok(result.metrics.heapBytes > 0, `${name}: heapBytes ${result.metrics.heapBytes}`);
      assert.equal(result.tool, name);
      assert.match(result.callId, /^[0-9a-f-]{36}$/);
      assert.match(result.version ?? "", /^[0-9a-f]{64}$/);
    }
  });

  it("a returned string is the text output with no structured data; anything else is structured, shown as JSON", async () => {
    const text = await shared.host.call("say_text", {});
    assert.ok(text.ok);
    assert.equal(text.output, "plain words");
    assert.equal(text.structured, undefined);
    assert.equal(text.source, "agent:text");
    const data = await shared.host.call("say_data", {});
    assert.ok(data.ok);
    assert.deepEqual(data.structured, { n: 1, list: ["a"] });
    assert.equal(data.output, '{"n":1,"list":["a"]}');
  });

  it("toolResult() answers on every channel: text, structured, details, control, images", async () => {
    const result = await shared.host.call("channels", {});
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.output, "summary for the model");
    assert.deepEqual(result.structured, { rows: 2 });
    assert.deepEqual(result.details, { debug: [1, 2] });
    assert.deepEqual(result.control, { add_tools: ["later_tool"], terminate: true });
    assert.deepEqual(result.images, [{ mimeType: "image/png", data: "iVBORw0KGgo=" }]);
  });

  it("a result that does not match the tool's output schema is a tool_error naming the schema", async () => {
    const good = await shared.host.call("typed_output", { good: true });
    assert.ok(good.ok);
    assert.deepEqual(good.structured, { count: 3 });
    const bad = await shared.host.call("typed_output", { good: false });
    assert.equal(outcomeOf(bad), "tool_error");
    assert.ok(!bad.ok);
    assert.match(bad.error.message, /output schema/);
    assert.deepEqual(bad.error.issues?.map((issue) => issue.path), [["count"]]);
  });

  it("an unknown name is unknown_tool, including Object.prototype's names", async () => {
    for (const name of ["no_such_tool", "constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", ""]) {
      const result = await shared.host.call(name, {});
      assert.equal(outcomeOf(result), "unknown_tool", `${name}: ${JSON.stringify(result)}`);
      assert.equal(result.metrics.cpuMs, 0, "nothing ran");
    }
  });

  it("input that does not match the tool's schema is invalid_input with zod issues", async () => {
    const result = await shared.host.call("strict_input", { n: -1.5, extra: true });
    assert.equal(outcomeOf(result), "invalid_input");
    assert.ok(!result.ok);
    const issues = result.error.issues ?? [];
    const paths = issues.map((issue) => issue.path.join("."));
    assert.ok(paths.includes("n"), JSON.stringify(issues));
    assert.ok(paths.includes("tag"), JSON.stringify(issues));
    for (const issue of issues) {
      assert.equal(typeof issue.message, "string");
      assert.equal(typeof issue.code, "string");
    }
    assert.match(result.error.message, /does not match the tool's schema/);
    const fine = await shared.host.call("strict_input", { n: 4, tag: "t" });
    assert.ok(fine.ok);
    assert.deepEqual(fine.structured, 4);
  });

  it("input the host cannot send as JSON is invalid_input, without reaching the tool", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const input of [{ n: 1n }, cyclic]) {
      const result = await shared.host.call("strict_input", input);
      assert.equal(outcomeOf(result), "invalid_input");
    }
  });

  it("a tool that throws is a tool_error with the error's name and message and a stack in its source", async () => {
    const result = await shared.host.call("thrower", {});
    assert.equal(outcomeOf(result), "tool_error");
    assert.ok(!result.ok);
    assert.equal(result.error.message, "TypeError: the tool gave up");
    assert.match(result.error.stack ?? "", /agent:thrower/);
  });

  it("a module may export several tools: an array default export", async () => {
    const names = shared.host.tools().filter((tool) => tool.source === "agent:array").map((tool) => tool.name);
    assert.deepEqual(names.sort(), ["globals_get", "globals_set"]);
    assert.equal(outcomeOf(await shared.host.call("globals_get", {})), "ok");
  });

  it("a module may export several tools as named exports; a tool that is also the default counts once", async () => {
    const tools = shared.host.tools().filter((tool) => tool.source === "agent:named");
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["named_lower", "named_upper"]);
    const lower = tools.find((tool) => tool.name === "named_lower");
    assert.deepEqual(lower?.effects, ["read"]);
    assert.equal(lower?.exposure, "deferred");
    const up = await shared.host.call("named_upper", { s: "MiXed" });
    assert.ok(up.ok);
    assert.equal(up.output, "MIXED");
    // named_lower declares "read": an agent tool with an effect needs the
    // embedding program's say-so, and this host has no gate.
    const down = await shared.host.call("named_lower", { s: "MiXed" });
    assert.equal(outcomeOf(down), "blocked");
  });

  it("two tools never share globals or module state, even from one module", async () => {
    const set = await shared.host.call("globals_set", {});
    assert.ok(set.ok);
    assert.deepEqual(set.structured, { global: "string", moduleCounter: 10 });
    const get = await shared.host.call("globals_get", {});
    assert.ok(get.ok);
    assert.deepEqual(get.structured, { global: "undefined", moduleCounter: 0 });
  });

  it("observed: a tool's own globals survive between its calls while its isolate stays warm (one worker: 1, 2, 3), and are gone after a limit disposes the isolate", async () => {
    const counts: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await shared.host.call("remember", {});
      assert.ok(result.ok, JSON.stringify(result));
      counts.push(result.structured);
    }
    assert.deepEqual(counts, [1, 2, 3]);
    const spun = await shared.host.call("remember", { spin: true });
    assert.equal(outcomeOf(spun), "timeout");
    const fresh = await shared.host.call("remember", {});
    assert.ok(fresh.ok, JSON.stringify(fresh));
    assert.equal(fresh.structured, 1, "a disposed isolate's globals are gone");
  });
});

describe("host calls: ordinary large results", { timeout: 60_000 }, () => {
  it("a result of 30 000 small records (under the 1 MiB budget) is written within the default 5 s limit", async () => {
    // The writer once brand-checked every plain object by throwing six
    // TypeErrors (about 100 µs per object): such a result took seconds.
    await withHost(async (host) => {
      const loaded = await host.load({
        source: "agent:many-records",
        code: toolSource({ name: "many_records", run: "return Array.from({ length: 30000 }, (_, i) => ({ i, tag: 'r' }));" }),
      });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("many_records", {});
      assert.equal(outcomeOf(result), "ok", JSON.stringify(result).slice(0, 500));
      assert.ok(result.ok && Array.isArray(result.structured) && result.structured.length === 30_000);
      assert.deepEqual(result.ok && result.structured[29_999], { i: 29_999, tag: "r" });
    });
  });
});

describe("host.load failures", { timeout: 60_000 }, () => {
  it("a module that throws at top level is a compile_error carrying the thrown message", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({
        source: "agent:throws",
        code: toolSource({ name: "never_loaded", run: "return 1;", top: "throw new RangeError('the top level exploded');" }),
      });
      assert.ok(!loaded.ok);
      assert.equal(loaded.error.kind, "compile_error");
      assert.match(loaded.error.message, /RangeError: the top level exploded/);
      assert.deepEqual(host.tools().filter((tool) => tool.source !== "host:corral"), []);
      assert.equal(outcomeOf(await host.call("never_loaded", {})), "unknown_tool");
    });
  });

  it("a module that exports no tool is a compile_error that says how to export one", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:empty", code: "export const answer = 42;" });
      assert.ok(!loaded.ok);
      assert.equal(loaded.error.kind, "compile_error");
      assert.match(loaded.error.message, /exports no tools/);
    });
  });
});
