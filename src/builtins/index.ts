/**
 * @module src/builtins
 * The host's built-in tools: tool_search and create_tool.
 */
export { BUILTIN_SOURCE } from "./builtin.js";
export { toolSearchTool, TOOL_SEARCH } from "./tool-search.js";
export { createToolTool, CREATE_TOOL } from "./create-tool.js";
