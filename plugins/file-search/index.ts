/**
 * @module plugins/file-search
 * The `file_search` tool: searches the text files of the workspace the host
 * grants (the `read` effect; `ctx.fs` is confined to that root) for a word
 * or a regular expression, and answers the matching lines with their paths
 * and line numbers. Symbolic links, binary files, files the host refuses
 * (too large) and the usual dependency and VCS folders are skipped.
 */
import { defineTool, toolResult, type ToolContext } from "corral";
import { z } from "zod";
import { createMatcher, excerpt, looksBinary } from "./search.js";

const SKIPPED_DIRECTORIES = new Set([".git", "node_modules", ".hg", ".svn", "dist", ".corral"]);

type Match = { path: string; line: number; text: string };

export default defineTool({
  name: "file_search",
  description:
    "Searches the workspace's text files for a word or phrase (case-insensitive by default) or a regular expression, under an optional folder and file extension; returns matching lines with path and line number.",
  input: z.object({
    query: z.string().min(1).max(1000),
    path: z.string().max(1000).default("").describe("A folder relative to the workspace root; empty for all of it"),
    extensions: z.array(z.string().regex(/^\.[A-Za-z0-9]+$/)).max(50).default([]).describe('Only files ending so, e.g. [".md", ".ts"]'),
    regex: z.boolean().default(false),
    caseSensitive: z.boolean().default(false),
    maxResults: z.number().int().min(1).max(1000).default(100),
    maxFiles: z.number().int().min(1).max(20_000).default(2000),
  }),
  effects: ["read"],
  async run(input, ctx: ToolContext) {
    let matcher;
    try {
      matcher = createMatcher(input.query, input);
    } catch (error) {
      throw new Error(`the query is not a valid regular expression: ${(error as Error).message}`);
    }
    const matches: Match[] = [];
    const skipped: string[] = [];
    let filesSearched = 0;
    let truncated = false;
    const folders = [input.path.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "")];
    while (folders.length > 0 && !truncated) {
      const folder = folders.shift() as string;
      const entries = await ctx.fs.readdir(folder === "" ? "." : folder, { withFileTypes: true });
      for (const entry of entries) {
        const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRECTORIES.has(entry.name)) folders.push(path);
          continue;
        }
        if (!entry.isFile() || (input.extensions.length > 0 && !input.extensions.some((ext) => entry.name.endsWith(ext)))) continue;
        if (filesSearched >= input.maxFiles) {
          truncated = true;
          break;
        }
        let text: string;
        try {
          text = (await ctx.fs.readFile(path, "utf8")) as string;
        } catch (error) {
          skipped.push(`${path}: ${(error as Error).message}`);
          continue;
        }
        filesSearched++;
        if (looksBinary(text)) continue;
        const lines = text.split(/\r\n|\r|\n/);
        for (let i = 0; i < lines.length; i++) {
          const at = matcher(lines[i] as string);
          if (at < 0) continue;
          if (matches.length >= input.maxResults) {
            truncated = true;
            break;
          }
          matches.push({ path, line: i + 1, text: excerpt(lines[i] as string, at) });
        }
        if (truncated) break;
      }
    }
    const lines = matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
    return toolResult({
      text: matches.length === 0 ? `No match for "${input.query}" in ${filesSearched} files.` : `${lines.join("\n")}${truncated ? "\n[more results not shown]" : ""}`,
      structured: { matches, filesSearched, truncated, skipped: skipped.slice(0, 20) },
    });
  },
});
