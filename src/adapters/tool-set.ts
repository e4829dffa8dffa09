/**
 * @module src/adapters/tool-set
 * What every model SDK adapter (corral/ai, corral/openai) starts from: the
 * tools a caller may see, read once when the adapter is built, with their
 * names checked against the target API's rule then, not at the first
 * request. The adapters then call through the host with that caller, so
 * exposure is enforced on the call path whatever the SDK sends.
 */
import { CorralError } from "../errors.js";
import type { ToolDeclaration } from "../host/index.js";
import type { Caller } from "../registry/index.js";
import type { ToolResult } from "../result.js";

/** The part of a Host an adapter uses: a corral Host fits as it is. */
export type AdapterHost = {
  declarations(options?: { caller?: Caller }): ToolDeclaration[];
  call(name: string, input: unknown, options?: { signal?: AbortSignal; caller?: Caller; timeoutMs?: number }): Promise<ToolResult>;
};

/** OpenAI's rule for function names (Responses, Chat Completions, Agents). */
export const OPENAI_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export type DeclaredTools = { caller: Caller; tools: ToolDeclaration[] };

export function declaredTools(host: AdapterHost, caller: Caller, pattern: RegExp, api: string, filter?: (name: string) => boolean): ToolDeclaration[] {
  const tools = host.declarations({ caller }).filter((tool) => filter === undefined || filter(tool.name));
  for (const tool of tools) {
    if (!pattern.test(tool.name)) {
      throw new CorralError(
        "invalid_tool_name",
        `the tool name ${JSON.stringify(tool.name.slice(0, 80))} is refused by ${api} (it must match ${pattern}); rename the tool or leave it out with the filter option`,
        { tool: tool.name, pattern: String(pattern) },
      );
    }
  }
  return tools;
}
