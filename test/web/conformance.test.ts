/**
 * @module test/web/conformance.test
 * The web-standard globals inside a tool's isolate give the same answers as
 * Node's own, case by case (./conformance-cases.ts), through a real host,
 * worker process and isolate.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { withHost } from "../helpers/host.js";
import { CASES } from "./conformance-cases.js";

type Answer = { value: unknown } | { threw: string };

/** The same wrapper text runs in Node and inside the tool. */
const RUN_CASE = `async function runCase(body, z) {
  try {
    const value = await new Function("z", "return (async () => {" + body + "})();")(z);
    return { value: JSON.parse(JSON.stringify(value === undefined ? null : value)) };
  } catch (e) {
    return { threw: e && e.name === "DOMException" ? e.name + ":" + e.code : String(e && e.name) };
  }
}`;

// eslint-disable-next-line no-new-func
const runInNode = new Function(`${RUN_CASE}; return runCase;`)() as (body: string, zod: unknown) => Promise<Answer>;

const TOOL = `import { defineTool } from "corral";
import { z } from "zod";
${RUN_CASE}
export default defineTool({
  name: "web_conformance",
  description: "runs web API cases",
  input: z.object({ cases: z.record(z.string(), z.string()) }),
  effects: [],
  async run(input) {
    const out = {};
    for (const [name, body] of Object.entries(input.cases)) out[name] = await runCase(body, z);
    return out;
  },
});
`;

describe("web globals: conformance with Node", { timeout: 120_000 }, () => {
  it("answers every case as Node does", async () => {
    const expected: Record<string, Answer> = {};
    for (const [name, body] of Object.entries(CASES)) expected[name] = await runInNode(body, z);
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:web", code: TOOL });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("web_conformance", { cases: CASES }, { timeoutMs: 20_000, memoryMb: 128 });
      assert.ok(result.ok, JSON.stringify(result));
      const actual = result.structured as Record<string, Answer>;
      const differing = Object.keys(CASES)
        .filter((name) => JSON.stringify(actual[name]) !== JSON.stringify(expected[name]))
        .map((name) => `${name}: isolate ${JSON.stringify(actual[name])}, Node ${JSON.stringify(expected[name])}`);
      assert.deepEqual(differing, []);
      assert.equal(Object.keys(actual).length, Object.keys(CASES).length);
    });
  });

  it("hands out random bytes that differ between isolates and calls", async () => {
    await withHost(async (host) => {
      const code = TOOL.replace('"web_conformance"', '"uuid_tool"');
      await host.load({ source: "agent:uuid", code });
      const ids = new Set<unknown>();
      for (let i = 0; i < 5; i++) {
        const result = await host.call("uuid_tool", { cases: { id: "return crypto.randomUUID();" } });
        assert.ok(result.ok, JSON.stringify(result));
        ids.add(((result.structured as Record<string, { value: unknown }>).id as { value: unknown }).value);
      }
      assert.equal(ids.size, 5);
    });
  });
});
