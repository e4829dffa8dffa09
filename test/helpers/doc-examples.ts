/**
 * @module test/helpers/doc-examples
 * The runnable examples of a document: fenced ```ts blocks marked
 * `<!-- example: name -->` (plus ` needs-node-22` when their SDK needs Node
 * 22 or later), and what each says it prints: every `// text` comment is a
 * line its output must hold. Read by the examples' test inside the checkout
 * and by the packed-package test in a user's project.
 */
import { readFileSync } from "node:fs";

export type DocExample = { name: string; code: string; needsNode22: boolean; expected: string[] };

export function docExamples(file: string): DocExample[] {
  const text = readFileSync(file, "utf8");
  const pattern = /<!-- example: ([\w-]+)( needs-node-22)? -->\s*```ts\n([\s\S]*?)```/g;
  return [...text.matchAll(pattern)].map((match) => {
    const code = match[3] as string;
    return { name: match[1] as string, code, needsNode22: match[2] !== undefined, expected: [...code.matchAll(/\/\/ (.+)$/gm)].map((m) => (m[1] as string).trim()) };
  });
}
