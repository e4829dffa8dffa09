/**
 * @module plugins/text-stats/text-stats.test
 * text_stats through a real host: each count on texts whose answers are
 * known, Unicode, empty text, and the ranking rules of topWords.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";

// Tests run from dist/plugins/text-stats/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/text-stats", import.meta.url));

type Stats = {
  characters: number;
  words: number;
  lines: number;
  sentences: number;
  paragraphs: number;
  averageWordLength: number;
  readingTimeSeconds: number;
  topWords: { word: string; count: number }[];
};
type Call = (input: unknown) => Promise<ToolResult>;

async function withTool(fn: (call: Call) => Promise<void>): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: PLUGIN });
    assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
    await fn((input) => host.call("text_stats", input));
  });
}

async function stats(call: Call, text: string): Promise<Stats> {
  const result = await call({ text });
  assert.equal(result.ok, true, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  return (result.ok ? result.structured : undefined) as Stats;
}

describe("text_stats plugin", { timeout: 60_000 }, () => {
  it("counts a small text exactly", async () => {
    await withTool(async (call) => {
      const text = "The cat sat on the mat. The cat slept!\n\nA dog barked? Yes.\n";
      const s = await stats(call, text);
      assert.equal(s.characters, text.length);
      assert.equal(s.words, 13);
      assert.equal(s.lines, 3);
      assert.equal(s.sentences, 4);
      assert.equal(s.paragraphs, 2);
      // The cat sat on the mat The cat slept A dog barked Yes: 41 letters over 13 words.
      assert.equal(s.averageWordLength, 3.15);
      assert.equal(s.readingTimeSeconds, 3);
      assert.deepEqual(s.topWords.slice(0, 2), [
        { word: "cat", count: 2 },
        { word: "barked", count: 1 },
      ]);
      assert.ok(!s.topWords.some((w) => w.word === "the" || w.word === "on"), "stop words are left out");
    });
  });

  it("answers zeros for empty text", async () => {
    await withTool(async (call) => {
      assert.deepEqual(await stats(call, ""), {
        characters: 0,
        words: 0,
        lines: 0,
        sentences: 0,
        paragraphs: 0,
        averageWordLength: 0,
        readingTimeSeconds: 0,
        topWords: [],
      });
      const blank = await stats(call, "  \n\n \t");
      assert.equal(blank.words, 0);
      assert.equal(blank.paragraphs, 0);
      assert.equal(blank.sentences, 0);
    });
  });

  it("counts Unicode by code point and keeps contractions and hyphenated words whole", async () => {
    await withTool(async (call) => {
      const s = await stats(call, "Café 😀 naïve don't state-of-the-art");
      assert.equal(s.characters, 35);
      assert.equal(s.words, 4);
      assert.deepEqual(
        s.topWords.map((w) => w.word),
        ["café", "naïve", "state-of-the-art"],
      );
    });
  });

  it("does not end sentences inside numbers and counts CRLF lines once", async () => {
    await withTool(async (call) => {
      const s = await stats(call, "Pi is 3.14 roughly. Really?\r\nYes\r\n");
      assert.equal(s.sentences, 3);
      assert.equal(s.lines, 2);
      assert.equal(s.words, 7);
    });
  });

  it("ranks topWords by count, ignoring case and numbers, ties alphabetically, ten at most", async () => {
    await withTool(async (call) => {
      const words = ["Zebra", "zebra", "ZEBRA", "apple", "Apple", "2024", "2024", "2024", "2024"];
      for (let i = 0; i < 15; i++) words.push(`w${String.fromCharCode(97 + i)}`);
      const s = await stats(call, words.join(" "));
      assert.deepEqual(s.topWords.slice(0, 3), [
        { word: "zebra", count: 3 },
        { word: "apple", count: 2 },
        { word: "wa", count: 1 },
      ]);
      assert.equal(s.topWords.length, 10);
      assert.ok(!s.topWords.some((w) => w.word === "2024"));
    });
  });

  it("estimates reading time at 238 words per minute", async () => {
    await withTool(async (call) => {
      const s = await stats(call, "word ".repeat(2_380));
      assert.equal(s.words, 2_380);
      assert.equal(s.readingTimeSeconds, 600);
      assert.deepEqual(s.topWords, [{ word: "word", count: 2_380 }]);
    });
  });

  it("rejects input that is not text", async () => {
    await withTool(async (call) => {
      const missing = await call({});
      assert.equal(missing.ok, false);
      assert.equal(missing.ok ? "" : missing.error.kind, "invalid_input");
      const number = await call({ text: 42 });
      assert.equal(number.ok ? "" : number.error.kind, "invalid_input");
    });
  });
});
