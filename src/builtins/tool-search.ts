/**
 * @module src/builtins/tool-search
 * `tool_search`: finds deferred tools by keywords in their names and
 * descriptions, answers their schemas, and asks the loop (control.add_tools)
 * to declare them for the rest of the conversation.
 */
import { z } from "zod";
import { searchDeferred, type CatalogEntry } from "../registry/index.js";
import { builtinEntry } from "./builtin.js";

export const TOOL_SEARCH = "tool_search";

/** `isQuarantined`: a quarantined source's tools are never offered. */
export function toolSearchTool(entries: () => CatalogEntry[], isQuarantined: (source: string) => boolean): CatalogEntry {
  return builtinEntry({
    name: TOOL_SEARCH,
    description:
      "Finds more tools by keywords (what you want to do, in a few words). The tools found become available to call from your next turn on.",
    input: z.object({
      query: z.string().min(1).max(500).describe("keywords, e.g. 'convert csv to json'"),
      limit: z.number().int().min(1).max(20).optional().describe("at most this many tools (default 5)"),
    }),
    exposure: "direct",
    async run({ query, limit }) {
      const found = searchDeferred(entries(), query, limit ?? 5, isQuarantined);
      if (found.length === 0) {
        return { ok: true, text: `No tool matches "${query}". Try other keywords.`, structured: { tools: [] } };
      }
      const tools = found.map((entry) => ({
        name: entry.manifest.name,
        description: entry.manifest.description,
        input_schema: entry.manifest.inputSchema,
      }));
      const text = [
        `Found ${tools.length} tool${tools.length === 1 ? "" : "s"}; they can be called from the next turn:`,
        ...tools.map((tool) => `- ${tool.name}: ${tool.description.split("\n")[0]}\n  input: ${JSON.stringify(tool.input_schema)}`),
      ].join("\n");
      return { ok: true, text, structured: { tools }, control: { add_tools: tools.map((tool) => tool.name) } };
    },
  });
}
