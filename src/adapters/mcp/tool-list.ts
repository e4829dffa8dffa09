/**
 * @module src/adapters/mcp/tool-list
 * What `tools/list` answers for one session: the tools its caller may reach
 * (exposure and quarantine respected, as host.declarations decides), each
 * with its input schema, its output schema when MCP can carry it, a title,
 * and hints derived from its declared effects.
 *
 * Hints are what a client shows or auto-approves by, so when in doubt they
 * say the cautious thing: undeclared or unknown effects read as a tool that
 * may write and reach the world.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Host, ToolInfo } from "../../host/index.js";
import type { Caller } from "../../registry/index.js";

// Asking the caller's user or model changes nothing outside the conversation.
const READ_ONLY_EFFECTS: ReadonlySet<string> = new Set(["read", "ask_user", "sample_model"]);
const DESTRUCTIVE_EFFECTS: ReadonlySet<string> = new Set(["fs_write", "exec", "net_write", "state_write"]);
const OPEN_WORLD_EFFECTS: ReadonlySet<string> = new Set(["net_read", "net_write"]);
const KNOWN_EFFECTS: ReadonlySet<string> = new Set([...READ_ONLY_EFFECTS, ...DESTRUCTIVE_EFFECTS, ...OPEN_WORLD_EFFECTS]);

export type ToolHints = { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };

export function hintsFor(effects: readonly string[] | null): ToolHints {
  if (effects === null || effects.some((effect) => !KNOWN_EFFECTS.has(effect))) {
    return { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
  }
  return {
    readOnlyHint: effects.every((effect) => READ_ONLY_EFFECTS.has(effect)),
    destructiveHint: effects.some((effect) => DESTRUCTIVE_EFFECTS.has(effect)),
    openWorldHint: effects.some((effect) => OPEN_WORLD_EFFECTS.has(effect)),
  };
}

/** `csv_to_json` → `Csv to json`: a name a person can read, from the only name a tool has. */
export function titleOf(name: string): string {
  const words = name.split(/[_-]+/).filter(Boolean).join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function isObjectSchema(schema: Record<string, unknown> | undefined): schema is Record<string, unknown> & { type: "object" } {
  return schema !== undefined && schema.type === "object";
}

/**
 * The dialect of every schema corral serves (zod writes 2020-12). The host
 * trims `$schema` from what a model is sent; MCP names it (SEP-1613: a
 * client reads the dialect from it), so it is put back here.
 */
export const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

export function toMcpTool(info: ToolInfo, description: string, inputSchema: Record<string, unknown>): Tool {
  const hints = hintsFor(info.effects);
  const tool: Tool = {
    name: info.name,
    title: titleOf(info.name),
    description,
    // MCP wants an object schema at the root; a tool's input is always a z.object.
    inputSchema: { $schema: SCHEMA_DIALECT, ...inputSchema, type: "object" },
    annotations: { title: titleOf(info.name), ...hints },
  };
  // MCP carries only object output schemas (structuredContent is an object);
  // any other output still reaches the client as text.
  if (isObjectSchema(info.outputSchema)) tool.outputSchema = { $schema: SCHEMA_DIALECT, ...info.outputSchema };
  return tool;
}

export function listTools(host: Host, caller: Caller): Tool[] {
  const infos = new Map(host.tools().map((info) => [info.name, info]));
  const tools: Tool[] = [];
  for (const declaration of host.declarations({ caller })) {
    const info = infos.get(declaration.name);
    if (info !== undefined) tools.push(toMcpTool(info, declaration.description, declaration.input_schema));
  }
  return tools;
}
