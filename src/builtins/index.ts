/**
 * @module src/builtins
 * The host's built-in tools: tool_search, create_tool (when the host offers
 * it), and run_code (Code Mode's entry, made by src/codemode).
 */
import type { Catalog, CatalogEntry, Manifest } from "../registry/index.js";
import type { LoadResult } from "../host/types.js";
import { createToolTool } from "./create-tool.js";
import { toolSearchTool } from "./tool-search.js";

export { BUILTIN_SOURCE } from "./builtin.js";
export { toolSearchTool, TOOL_SEARCH, searchable, searchIndexOf } from "./tool-search.js";
export { createToolTool, CREATE_TOOL } from "./create-tool.js";

export type BuiltinDeps = {
  catalog: Catalog;
  isQuarantined(source: string): boolean;
  createTool: { exposure: Manifest["exposure"]; author(code: string, caller: string | null): Promise<LoadResult> } | undefined;
  codeMode: { entry(): CatalogEntry } | undefined;
};

export function builtinEntries(deps: BuiltinDeps): CatalogEntry[] {
  const builtins: CatalogEntry[] = [toolSearchTool(deps.catalog, deps.isQuarantined)];
  if (deps.createTool !== undefined) builtins.push(createToolTool(deps.createTool.exposure, deps.createTool.author));
  if (deps.codeMode !== undefined) builtins.push(deps.codeMode.entry());
  return builtins;
}
