/**
 * @module plugins/text-stats
 * The `text_stats` tool: counts and reading time of a text, and its most
 * frequent meaningful words. The definitions of "word", "sentence" and
 * "paragraph" below are the contract; the description repeats them so the
 * model knows what the numbers mean.
 */
import { defineTool } from "corral";
import { z } from "zod";
import { STOP_WORDS } from "./stop-words.js";

/** Average silent reading speed of adults for non-fiction (Brysbaert, 2019). */
const WORDS_PER_MINUTE = 238;
const TOP_WORDS = 10;

// Letters or digits, with inner apostrophes or hyphens: "don't", "state-of-the-art", "3.5" is two words.
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’\-][\p{L}\p{M}\p{N}]+)*/gu;
// A sentence ends at . ! ? or … followed by a space or the end, so "3.14" and "e.g.x" do not split.
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s|$)/u;
const LINE_BREAK = /\r\n|\r|\n/;
const BLANK_LINES = /(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)\s*/;

/** Code points without building an array: a megabyte of text stays a megabyte. */
function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    // A surrogate pair is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    count++;
  }
  return count;
}

function countLines(text: string): number {
  if (text === "") return 0;
  // A final line break ends the last line; it does not start a new one (as `wc -l` sees it, plus an unterminated last line).
  return text.replace(/(?:\r\n|\r|\n)$/, "").split(LINE_BREAK).length;
}

function topWords(words: string[]): { word: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const raw of words) {
    const word = raw.toLowerCase().replaceAll("’", "'");
    // Numbers are not topics, and stop words top every text.
    if (STOP_WORDS.has(word) || !/\p{L}/u.test(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts]
    .map(([word, count]) => ({ word, count }))
    // Ties go alphabetically so the answer does not depend on word order.
    .sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0))
    .slice(0, TOP_WORDS);
}

export default defineTool({
  name: "text_stats",
  description:
    "Count the characters, words, lines, sentences and paragraphs of a text, with its average word length, an " +
    `estimated reading time (at ${WORDS_PER_MINUTE} words per minute) and its ${TOP_WORDS} most frequent words. ` +
    "Characters are Unicode code points (spaces included). A word is a run of letters or digits, with inner " +
    "apostrophes or hyphens. Sentences end at . ! ? or … followed by a space or the end (abbreviations such as " +
    '"Dr." count as an end, so the count is approximate). Paragraphs are separated by blank lines. topWords ' +
    "ignores case, numbers and common English stop words (the, and, of, ...).",
  input: z.strictObject({
    text: z.string().describe("The text to analyse."),
  }),
  effects: [],
  run({ text }) {
    const words = text.match(WORD) ?? [];
    let wordCodePoints = 0;
    for (const word of words) wordCodePoints += countCodePoints(word);
    const sentences = text.split(SENTENCE_END).filter((part) => /[\p{L}\p{N}]/u.test(part)).length;
    const paragraphs = text.split(BLANK_LINES).filter((part) => part.trim() !== "").length;
    return {
      characters: countCodePoints(text),
      words: words.length,
      lines: countLines(text),
      sentences,
      paragraphs,
      averageWordLength: words.length === 0 ? 0 : Math.round((wordCodePoints / words.length) * 100) / 100,
      readingTimeSeconds: Math.round((words.length / WORDS_PER_MINUTE) * 60),
      topWords: topWords(words),
    };
  },
});
