/**
 * @module plugins/text-diff
 * The `text_diff` tool: a unified diff of two texts, with line counts. The
 * diffing is jsdiff's (the `diff` package in this folder's own node_modules,
 * pinned in package.json); this file owns the tool's contract and the counts.
 *
 * jsdiff quotes unusual file names with TextEncoder, which the isolate lacks;
 * the names here are the fixed ASCII labels "before" and "after", so that
 * path is never taken.
 */
import { defineTool, toolResult } from "corral";
import { z } from "zod";
import { formatPatch, FILE_HEADERS_ONLY, structuredPatch } from "diff";

/**
 * jsdiff's search is O(N·D); on two long and very different texts it can run
 * for a long time. Past this budget it gives up, and so do we, with a message,
 * well inside the host's default 5 s call limit.
 */
const DIFF_BUDGET_MS = 2_000;

/** Lines as jsdiff counts them: ended by "\n" (or "\r\n"), plus an unterminated last line. */
function lineCount(text: string): number {
  if (text === "") return 0;
  let breaks = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) breaks++;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

function tooSlow(): never {
  throw new Error(`the texts are too large and too different to diff within ${DIFF_BUDGET_MS} ms; diff smaller parts`);
}

export default defineTool({
  name: "text_diff",
  description:
    "Compare two texts line by line and return a unified diff (the format of `diff -u` and git: lines starting " +
    "with - were removed, + were added, and @@ headers give line numbers), labelled before and after. The " +
    "structured result counts added, removed and unchanged lines and the number of hunks. Identical texts give " +
    '"No differences." A missing newline at the end of a text is shown as "\\ No newline at end of file".',
  input: z.strictObject({
    before: z.string().describe("The original text."),
    after: z.string().describe("The changed text."),
    context: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(3)
      .describe("How many unchanged lines to show around each change (default 3)."),
  }),
  effects: [],
  run({ before, after, context }) {
    const patch = structuredPatch("before", "after", before, after, undefined, undefined, { context, timeout: DIFF_BUDGET_MS });
    if (patch === undefined) tooSlow();
    let added = 0;
    let removed = 0;
    for (const hunk of patch.hunks) {
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
      }
    }
    const hunks = patch.hunks.length;
    const text = hunks === 0 ? "No differences." : formatPatch(patch, FILE_HEADERS_ONLY);
    return toolResult({ text, structured: { added, removed, unchanged: lineCount(before) - removed, hunks } });
  },
});
