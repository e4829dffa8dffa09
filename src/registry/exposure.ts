/**
 * @module src/registry/exposure
 * Which tools a caller may reach, declared or called: one rule for both, so a
 * model is never able to call what it was not shown.
 *
 * | exposure     | model                     | codemode                  | program (host.call) |
 * |--------------|---------------------------|---------------------------|---------------------|
 * | `direct`     | yes                       | yes                       | yes                 |
 * | `model_only` | yes                       | no                        | yes                 |
 * | `codemode`   | no                        | yes                       | yes                 |
 * | `deferred`   | once tool_search found it | once tool_search found it | yes                 |
 * | `hidden`     | no                        | no                        | yes                 |
 *
 * A quarantined source's tools are never declared nor offered by
 * tool_search; called anyway (a client that ignored list_changed), they
 * answer `quarantined` from the call path.
 */
import type { CatalogEntry } from "./catalog.js";
import type { Manifest } from "./manifest.js";
import type { CallerOrigin } from "./caller.js";

export type ToolDeclaration = { name: string; description: string; input_schema: Record<string, unknown> };

/** The part of a Caller the rule reads. */
export type Reach = { origin: CallerOrigin; activated: ReadonlySet<string> };

export function mayReach(manifest: Pick<Manifest, "name" | "exposure">, caller: Reach): boolean {
  switch (manifest.exposure) {
    case "direct":
      return true;
    case "model_only":
      return caller.origin === "model";
    case "codemode":
      return caller.origin === "codemode";
    case "deferred":
      return caller.activated.has(manifest.name);
    case "hidden":
      return false;
    default:
      // An exposure added to EXPOSURES without a rule here reaches nobody.
      return false;
  }
}

export function declare(entries: CatalogEntry[], isQuarantined: (source: string) => boolean, activated: ReadonlySet<string>): ToolDeclaration[] {
  const model: Reach = { origin: "model", activated };
  return entries
    .filter((entry) => mayReach(entry.manifest, model) && !isQuarantined(entry.source))
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
 * three times a hit in the description. Tools with no hit are left out, and
 * so are a quarantined source's.
 */
export function searchDeferred(entries: CatalogEntry[], query: string, limit: number, isQuarantined: (source: string) => boolean): CatalogEntry[] {
  return rankByQuery(entries.filter((entry) => entry.manifest.exposure === "deferred" && !isQuarantined(entry.source)), query, limit);
}

/** `entries` ranked by the query's keywords (name hits weigh three times description hits); no hit, left out. */
export function rankByQuery(entries: CatalogEntry[], query: string, limit: number): CatalogEntry[] {
  const wanted = terms(query);
  const scored = entries
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
