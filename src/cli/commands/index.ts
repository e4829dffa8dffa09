/**
 * @module src/cli/commands
 * One function per `corral` command; each takes its parsed arguments and a
 * CliContext, owns its host (or, for the operator's commands, its ledger),
 * and answers an exit code.
 */
export { runCommand, type RunOptions } from "./run.js";
export { checkCommand, type CheckOptions } from "./check.js";
export { listCommand, type ListOptions } from "./list.js";
export { demoCommand } from "./demo.js";
export { initCommand } from "./init.js";
export { auditCommand, type AuditOptions } from "./audit.js";
export { parseUntil, quarantineCommand, releaseCommand, type QuarantineOptions, type ReleaseOptions } from "./quarantine.js";
export { toolsCommand, toolVersionsCommand, toolChangeCommand, type ToolsOptions } from "./tools.js";
export { dashboardCommand, DASHBOARD_TOKEN_ENV, type DashboardCliOptions } from "./dashboard.js";
// mcp.ts loads the MCP SDK: main.ts imports it only when `corral mcp` runs.
export { MCP_DEFAULT_WORKERS, MCP_TOKEN_ENV, mcpOptionsOf, type McpFlags } from "./mcp-env.js";
export type { McpOptions } from "./mcp.js";
