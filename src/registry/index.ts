/**
 * @module src/registry
 * The catalog of loaded tools and the host's check of their manifests.
 */
export { Catalog, type CatalogEntry, type Runner, type BuiltinRun, type BuiltinAnswer } from "./catalog.js";
export { declare, searchDeferred, type ToolDeclaration } from "./exposure.js";
export { checkManifests, Manifest, TOOL_NAME_PATTERN, MAX_DESCRIPTION_CHARS } from "./manifest.js";
