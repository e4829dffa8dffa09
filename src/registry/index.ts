/**
 * @module src/registry
 * The catalog of loaded tools, the host's check of their manifests, and the
 * cache of checked manifests.
 */
export { Catalog, type CatalogEntry, type Runner, type BuiltinRun, type BuiltinAnswer, type CodeModeRunner, type ScriptRunner, type ScriptCallContext, type ScriptEnd, type StoredRunner } from "./catalog.js";
export { declare, mayReach, searchDeferred, rankByQuery, type Reach, type ToolDeclaration } from "./exposure.js";
export { Caller, createCaller, CallerOptions, CALLER_ORIGINS, CALLER_ID_PATTERN, type CallerOrigin } from "./caller.js";
export { checkManifests, checkManifestList, Manifest, TOOL_NAME_PATTERN, MAX_DESCRIPTION_CHARS } from "./manifest.js";
export { ManifestCache, guestRuntimeId, type ManifestCacheOptions, type ManifestOrigin } from "./manifest-cache.js";
export { trimSchema } from "./json-schema.js";
export { BUNDLED_PLUGINS_DIR, BUNDLED_SOURCE_PREFIX } from "./bundled-plugins.js";
