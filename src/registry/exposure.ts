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
import { SearchIndex } from "./search.js";

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

/**
 * Deferred tools ranked by the query (BM25 over names, parameter names and
 * descriptions: search.ts). Tools with no hit are left out, and so are a
 * quarantined source's.
 */
export function searchDeferred(entries: CatalogEntry[], query: string, limit: number, isQuarantined: (source: string) => boolean): CatalogEntry[] {
  return rankByQuery(entries.filter((entry) => entry.manifest.exposure === "deferred" && !isQuarantined(entry.source)), query, limit);
}

/** `entries` ranked by the query; no hit, left out. */
export function rankByQuery(entries: CatalogEntry[], query: string, limit: number): CatalogEntry[] {
  return new SearchIndex(entries).search(query, limit);
}
