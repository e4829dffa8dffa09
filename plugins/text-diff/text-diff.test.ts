/**
 * @module plugins/text-diff/text-diff.test
 * text_diff through a real host, with jsdiff bundled from the plugin's own
 * node_modules: the unified diff text, the counts, context, and the limits.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";

// Tests run from dist/plugins/text-diff/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/text-diff", import.meta.url));

type Counts = { added: number; removed: number; unchanged: number; hunks: number };
type Call = (input: unknown) => Promise<ToolResult>;

async function withTool(fn: (call: Call) => Promise<void>): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: PLUGIN });
    assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
    await fn((input) => host.call("text_diff", input));
  });
}

async function diff(call: Call, input: unknown): Promise<{ text: string; counts: Counts }> {
  const result = await call(input);
  assert.equal(result.ok, true, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  return result.ok ? { text: result.output, counts: result.structured as Counts } : { text: "", counts: {} as Counts };
}

const lines = (count: number, label = "line") => Array.from({ length: count }, (_, i) => `${label} ${i + 1}\n`).join("");

describe("text_diff plugin", { timeout: 60_000 }, () => {
  it("gives a unified diff and its counts", async () => {
    await withTool(async (call) => {
      const { text, counts } = await diff(call, { before: "a\nb\nc\n", after: "a\nB\nc\nd\n" });
      assert.equal(text, ["--- before", "+++ after", "@@ -1,3 +1,4 @@", " a", "-b", "+B", " c", "+d", ""].join("\n"));
      assert.deepEqual(counts, { added: 2, removed: 1, unchanged: 2, hunks: 1 });
    });
  });

  it("says so when the texts are identical", async () => {
    await withTool(async (call) => {
      const same = await diff(call, { before: "x\ny\n", after: "x\ny\n" });
      assert.equal(same.text, "No differences.");
      assert.deepEqual(same.counts, { added: 0, removed: 0, unchanged: 2, hunks: 0 });
      assert.deepEqual((await diff(call, { before: "", after: "" })).counts, { added: 0, removed: 0, unchanged: 0, hunks: 0 });
    });
  });

  it("splits distant changes into hunks, following the context option", async () => {
    await withTool(async (call) => {
      const before = lines(30);
      const after = before.replace("line 2\n", "line two\n").replace("line 28\n", "line twenty-eight\n");
      const three = await diff(call, { before, after });
      assert.equal(three.counts.hunks, 2);
      assert.deepEqual(three.counts, { added: 2, removed: 2, unchanged: 28, hunks: 2 });
      assert.match(three.text, /^@@ -1,5 \+1,5 @@$/m);
      assert.match(three.text, /^@@ -25,6 \+25,6 @@$/m);
      // With enough context the two changes share one hunk.
      assert.equal((await diff(call, { before, after, context: 20 })).counts.hunks, 1);
      const none = await diff(call, { before, after, context: 0 });
      assert.match(none.text, /^@@ -2,1 \+2,1 @@\n-line 2\n\+line two$/m);
    });
  });

  it("handles empty sides, CRLF and a missing final newline", async () => {
    await withTool(async (call) => {
      const created = await diff(call, { before: "", after: "new\nfile\n" });
      assert.deepEqual(created.counts, { added: 2, removed: 0, unchanged: 0, hunks: 1 });
      assert.match(created.text, /^@@ -0,0 \+1,2 @@$/m);
      const deleted = await diff(call, { before: "gone\n", after: "" });
      assert.deepEqual(deleted.counts, { added: 0, removed: 1, unchanged: 0, hunks: 1 });
      const crlf = await diff(call, { before: "a\r\nb\r\n", after: "a\r\nc\r\n" });
      assert.deepEqual(crlf.counts, { added: 1, removed: 1, unchanged: 1, hunks: 1 });
      const noNewline = await diff(call, { before: "a\nb", after: "a\nb\n" });
      assert.match(noNewline.text, /-b\n\\ No newline at end of file\n\+b\n/);
      assert.deepEqual(noNewline.counts, { added: 1, removed: 1, unchanged: 1, hunks: 1 });
    });
  });

  it("diffs a long text with a few changes quickly", async () => {
    await withTool(async (call) => {
      const before = lines(20_000);
      const after = before.replace("line 10000\n", "").replace("line 15000\n", "line 15000\ninserted\n");
      const { counts } = await diff(call, { before, after });
      assert.deepEqual(counts, { added: 1, removed: 1, unchanged: 19_999, hunks: 2 });
    });
  });

  it("gives up with a tool error on texts too different to diff in time", async () => {
    await withTool(async (call) => {
      const result = await call({ before: lines(8_000, "old"), after: lines(8_000, "new") });
      assert.equal(result.ok, false);
      assert.equal(result.ok ? "" : result.error.kind, "tool_error");
      assert.match(result.ok ? "" : result.error.message, /too different to diff within 2000 ms/);
    });
  });

  it("rejects malformed input", async () => {
    await withTool(async (call) => {
      for (const input of [{ before: "a" }, { before: "a", after: "b", context: -1 }, { before: "a", after: "b", context: 1.5 }, { before: 1, after: "b" }]) {
        const result = await call(input);
        assert.equal(result.ok ? "ok" : result.error.kind, "invalid_input", JSON.stringify(input));
      }
    });
  });
});
