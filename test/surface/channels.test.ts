/**
 * Result channels end to end: text and structured data for the model, capped
 * with a note; details never in the output; images checked for type and size.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

const withResult = (name: string, body: string) => toolSource({ name, top: 'import { toolResult } from "corral";', run: body });

describe("result channels", { timeout: 120_000 }, () => {
  it("caps the model's output by lines and characters, saying how much was cut", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:long", code: toolSource({ name: "many_lines", run: "return Array.from({ length: 50 }, (_, i) => 'line ' + i).join('\\n');" }) });
        await host.load({ source: "agent:wide", code: toolSource({ name: "wide", run: "return 'x'.repeat(5000);" }) });
        const lines = await host.call("many_lines", {});
        assert.ok(lines.ok);
        assert.match(lines.output, /^line 0\nline 1\n/);
        assert.ok(!lines.output.includes("line 49"));
        assert.match(lines.output, /\[corral: output cut to \d+ of \d+ characters, 10 of 50 lines; ask the tool for less\]$/);
        const wide = await host.call("wide", {});
        assert.ok(wide.ok);
        assert.match(wide.output, /^x{1000}\n\[corral: output cut to 1000 of 5000 characters/);
      },
      { maxModelOutputLines: 10, maxModelOutputChars: 1000 },
    );
  });

  it("keeps text, structured and details apart", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:c", code: withResult("channels", "return toolResult({ text: 'for the model', structured: { n: 1 }, details: { secret: 'screen only' } });") });
      const result = await host.call("channels", {});
      assert.ok(result.ok);
      assert.equal(result.output, "for the model");
      assert.deepEqual(result.structured, { n: 1 });
      assert.deepEqual(result.details, { secret: "screen only" });
      assert.ok(!result.output.includes("screen only"));
    });
  });

  it("accepts a small PNG, refuses an unknown image type, bad base64 and an oversized image", async () => {
    await withHost(
      async (host) => {
        const png = "iVBORw0KGgo=";
        await host.load({ source: "agent:img", code: withResult("good_image", `return toolResult({ text: 'a picture', images: [{ mimeType: 'image/png', data: '${png}' }] });`) });
        await host.load({ source: "agent:svg", code: withResult("svg_image", "return toolResult({ images: [{ mimeType: 'image/svg+xml', data: 'PHN2Zz4=' }] });") });
        await host.load({ source: "agent:b64", code: withResult("bad_base64", "return toolResult({ images: [{ mimeType: 'image/png', data: 'not base64!' }] });") });
        await host.load({ source: "agent:big", code: withResult("big_image", "return toolResult({ images: [{ mimeType: 'image/png', data: 'A'.repeat(4000) }] });") });
        const good = await host.call("good_image", {});
        assert.ok(good.ok);
        assert.deepEqual(good.images, [{ mimeType: "image/png", data: png }]);
        for (const [name, pattern] of [["svg_image", /image type "image\/svg\+xml"/], ["bad_base64", /not base64/], ["big_image", /larger than 2048/]] as const) {
          const result = await host.call(name, {});
          assert.equal(outcomeOf(result), "tool_error", name);
          assert.ok(!result.ok && pattern.test(result.error.message), `${name}: ${!result.ok ? result.error.message : ""}`);
        }
      },
      { maxImageBytes: 2048 },
    );
  });

  it("a tool's output schema is enforced: a result that breaks it is a tool_error naming the mismatch", async () => {
    await withHost(async (host) => {
      await host.load({
        source: "agent:o",
        code: toolSource({ name: "typed", extra: "output: z.object({ n: z.number() }),", run: "return { n: 'not a number' };" }),
      });
      const result = await host.call("typed", {});
      assert.ok(!result.ok);
      assert.equal(result.error.kind, "tool_error");
      assert.match(result.error.message, /does not match its output schema.*n:/);
    });
  });
});

describe("the warm isolate cache", { timeout: 120_000 }, () => {
  it("evicts the least recently used isolate past maxWarmIsolates: its globals start afresh", async () => {
    await withHost(
      async (host) => {
        const counter = (name: string) => toolSource({ name, run: "globalThis.n = (globalThis.n ?? 0) + 1; return globalThis.n;" });
        await host.load({ source: "agent:a", code: counter("count_a") });
        await host.load({ source: "agent:b", code: counter("count_b") });
        const a = async () => {
          const result = await host.call("count_a", {});
          assert.ok(result.ok);
          return result.structured;
        };
        assert.equal(await a(), 1);
        assert.equal(await a(), 2); // warm: its globals survived
        assert.ok((await host.call("count_b", {})).ok); // one isolate at most: a is evicted
        assert.equal(await a(), 1); // a fresh isolate
      },
      { workers: 1, maxWarmIsolates: 1 },
    );
  });
});
