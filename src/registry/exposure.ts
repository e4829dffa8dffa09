/**
 * @module src/registry/exposure
 * Which tools a model sees, and how deferred tools are found. `direct` and
 * `model_only` tools are declared; `deferred` ones only once a conversation
 * activated them (through tool_search's `control.add_tools`); `codemode`
 * tools are for code-mode runners and `hidden` ones for the embedding program
 * alone, so neither is declared. A quarantined source's tools are never
 * declared.
 */
import type { CatalogEntry } from "./catalog.js";

export type ToolDeclaration = { name: string; description: string; input_schema: Record<string, unknown> };

export function declare(entries: CatalogEntry[], isQuarantined: (source: string) => boolean, activated: ReadonlySet<string>): ToolDeclaration[] {
  return entries
    .filter((entry) => {
      const { exposure, name } = entry.manifest;
      const visible = exposure === "direct" || exposure === "model_only" || (exposure === "deferred" && activated.has(name));
      return visible && !isQuarantined(entry.source);
    })
    .map((entry) => ({ name: entry.manifest.name, description: entry.manifest.description, input_schema: entry.manifest.inputSchema }));
}

function terms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((term) => term.length > 1);
}

/**
 * Deferred tools ranked by the query's keywords: a hit in the name weighs
 * three times a hit in the description. Tools with no hit are left out.
 */
export function searchDeferred(entries: CatalogEntry[], query: string, limit: number): CatalogEntry[] {
  const wanted = terms(query);
  const scored = entries
    .filter((entry) => entry.manifest.exposure === "deferred")
    .map((entry) => {
      const name = entry.manifest.name.toLowerCase();
      const description = entry.manifest.description.toLowerCase();
      const score = wanted.reduce((sum, term) => sum + (name.includes(term) ? 3 : 0) + (description.includes(term) ? 1 : 0), 0);
      return { entry, score };
    })
    .filter((item) => item.score > 0)
    .sort((a, b) => b.score - a.score || a.entry.manifest.name.localeCompare(b.entry.manifest.name));
  return scored.slice(0, limit).map((item) => item.entry);
}
