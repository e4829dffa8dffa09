/**
 * @module src/cli/commands/mcp-env
 * The environment variable `corral mcp --http` reads its token from. Apart
 * from mcp.ts so that the CLI's other commands never load the MCP SDK.
 */
export const MCP_TOKEN_ENV = "CORRAL_MCP_TOKEN";
