/**
 * @module src/builtins/tool-search
 * `tool_search`: finds tools by what they do, answers their schemas, and
 * asks the loop (control.add_tools) to declare them for the rest of the
 * conversation. It searches the host's deferred tools and the whole library
 * of agent-written tools (`agent:` sources) a model may reach (direct,
 * model_only, deferred), ranked by BM25 (registry/search.ts). A retired tool
 * is not in the catalog; a quarantined source's tools are never offered.
 * The index is built once per change of the catalog, not per query.
 */
import { z } from "zod";
import { SearchIndex } from "../registry/search.js";
import type { Catalog, CatalogEntry } from "../registry/index.js";
import { builtinEntry } from "./builtin.js";

export const TOOL_SEARCH = "tool_search";

const MODEL_REACHABLE = new Set(["direct", "model_only", "deferred"]);

/** What tool_search may offer: deferred tools, and agent-written tools a model may reach once found. */
export function searchable(entry: CatalogEntry): boolean {
  const { exposure } = entry.manifest;
  return exposure === "deferred" || (entry.source.startsWith("agent:") && MODEL_REACHABLE.has(exposure));
}

/** The index of the catalog's searchable tools, rebuilt when the catalog moved. */
export function searchIndexOf(catalog: Catalog): () => SearchIndex {
  let built: { generation: number; index: SearchIndex } | undefined;
  return () => {
    if (built?.generation !== catalog.generation) built = { generation: catalog.generation, index: new SearchIndex(catalog.list().filter(searchable)) };
    return built.index;
  };
}

/** `isQuarantined`: a quarantined source's tools are never offered. */
export function toolSearchTool(catalog: Catalog, isQuarantined: (source: string) => boolean): CatalogEntry {
  const index = searchIndexOf(catalog);
  return builtinEntry({
    name: TOOL_SEARCH,
    description:
      "Finds more tools by what they do (a few words), among the host's tools and the tools agents wrote. The tools found become available to call from your next turn on.",
    input: z.object({
      query: z.string().min(1).max(500).describe("keywords, e.g. 'convert csv to json'"),
      limit: z.number().int().min(1).max(20).optional().describe("at most this many tools (default 5)"),
    }),
    exposure: "direct",
    async run({ query, limit }) {
      const found = index().search(query, limit ?? 5, (entry) => !isQuarantined(entry.source));
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
