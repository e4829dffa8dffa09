/**
 * @module src/config
 * `corral.json`: its schema (createHost's options as data, the tools, each
 * command's section), the JSON Schema made from it, and how a file is found,
 * read and checked.
 */
export { CorralConfig, McpSection, DashboardSection, CONFIG_FILE_NAME, configJsonSchema, type ConfigHostOptions } from "./schema.js";
export { findConfigFile, readConfig, checkConfigText, keyPath, type LoadedConfig } from "./read.js";
export type { ConfigIssue } from "./locate.js";
