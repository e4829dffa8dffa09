/**
 * @module src/cli/init-files
 * What `corral init` writes: a commented corral.json that turns on what a
 * desktop agent needs (create_tool, Code Mode), a sample tool, and the MCP
 * client snippets it prints. Text only; init.ts decides where it goes.
 */

/** The sample tool, relative to the project: tools/ is a folder of plugins, each file a tool. */
export const SAMPLE_TOOL_PATH = "tools/hello.ts";

export function configText(schemaRef: string): string {
  return `{
  // Editors check and complete this file against corral's JSON Schema.
  // Every key, with its default: node_modules/corral/docs/config.md
  "$schema": ${JSON.stringify(schemaRef)},

  // Tool files, plugin folders or folders of plugins, relative to this file.
  // Add "./node_modules/corral/plugins" for corral's bundled plugins (fetch_page, csv_to_json, ...).
  "tools": ["./tools"],

  // Limits each call gets unless its tool asks for less (and at most the max).
  "defaultTimeoutMs": 5000,
  "maxTimeoutMs": 60000,
  "defaultMemoryMb": 64,

  // An agent (the MCP client) may write its own tools with create_tool;
  // they run under the source agent:desktop, with their own strikes.
  "createTool": { "agent": "desktop" },

  // Code Mode: run_code takes a script that calls the tools as functions.
  "codeMode": { "timeoutMs": 10000 },

  // What each kind of source may do, per effect: "allow", "ask" or "deny".
  // A tool reaches the network or files only if its effect is allowed here
  // AND a capability grants the target:
  // "effects": { "plugin": { "net_read": "allow" } },
  // "capabilities": { "sources": { "plugin": { "net": { "allow": ["https://example.com"] } } } },

  // The ledger of calls, strikes and quarantines, beside this file.
  "ledger": { "store": ".corral/ledger.db" },

  // corral mcp: "stdio" for desktop clients, or "http" (the token comes
  // only from CORRAL_MCP_TOKEN or --token, never from this file).
  "mcp": { "transport": "stdio" },
}
`;
}

export const SAMPLE_TOOL = `import { defineTool } from "corral/sdk";
import { z } from "zod";

// A tool is a name, a description, an input schema, its effects and run().
// It runs in an isolate of its own, with time and memory limits, and returns
// plain data. corral check ./tools shows what the host sees of it.
export default defineTool({
  name: "hello",
  description: "Greets someone by name.",
  input: z.object({ name: z.string().describe("who to greet") }),
  effects: [],
  run(input) {
    return \`Hello, \${input.name}!\`;
  },
});
`;

/** The desktop client's entry (Claude Desktop, Cursor and others read this shape): node, corral's bin, the config. */
export function stdioSnippet(node: string, bin: string, config: string): string {
  return JSON.stringify({ mcpServers: { corral: { command: node, args: [bin, "mcp", "--config", config] } } }, null, 2);
}

/** An HTTP client's entry; the server is `corral mcp --http --port <port>` with CORRAL_MCP_TOKEN set. */
export function httpSnippet(port: number): string {
  return JSON.stringify({ mcpServers: { corral: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: "Bearer <the token in CORRAL_MCP_TOKEN>" } } } }, null, 2);
}
