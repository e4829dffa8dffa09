/**
 * @module src/host
 * The host: createHost and the shapes it takes and answers.
 */
export { createHost } from "./host.js";
export { AUDIO_MIME_TYPES, IMAGE_MIME_TYPES } from "./channels.js";
export type { AuthorRequest, CallOptions, DeclarationOptions, Host, HostSourceReport, LoadFailureKind, LoadRequest, LoadResult, ToolDeclaration, ToolInfo } from "./types.js";
export type { ManifestOrigin } from "../registry/index.js";
