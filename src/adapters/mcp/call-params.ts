/**
 * @module src/adapters/mcp/call-params
 * The params of tools/call and tools/list, checked by corral rather than by
 * the SDK, whose own check answers a malformed request with a raw zod dump
 * (-32602 for tools/call, -32603 for the rest). The specification's words, and what corral answers:
 *
 * - "Invalid params" is -32602 (JSON-RPC 2.0): a short message naming the
 *   field, never the validator's own output.
 * - "Unknown tools" are a protocol error, and the specification's example
 *   answers -32602: a tool this session may not reach (hidden, codemode,
 *   deferred and not found, an unexposed create_tool) gets the same words
 *   as a name that does not exist, so the answer never tells them apart.
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * A JSON-RPC error a request handler throws: the SDK answers its `code` and
 * `message` as they are (its own McpError would prefix "MCP error -32602: "
 * to the words the client reads).
 */
export class JsonRpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
  }
}


const CallParams = z.looseObject({
  name: z.string({ error: "must be a string" }).min(1, "must not be empty"),
  arguments: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
  _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()], { error: "must be a string or a number" }).optional() }, { error: "must be an object" }).optional(),
});
export type CallParams = z.infer<typeof CallParams>;

const ListParams = z.looseObject({ cursor: z.string({ error: "must be a string" }).optional() }).optional();

export function parseCallParams(params: unknown): CallParams {
  return checked(CallParams, params, "tools/call", "must be an object with a tool's name");
}

/** tools/list takes only an optional cursor (corral lists every tool in one page, so any string is the end). */
export function checkListParams(params: unknown): void {
  checked(ListParams, params, "tools/list", "must be an object");
}

function checked<T extends z.ZodType>(schema: T, params: unknown, method: string, whole: string): z.output<T> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? "params" : `params.${issue.path.map(String).join(".")}`;
  const detail = issue?.code === "invalid_type" && issue.path.length === 0 ? whole : (issue?.message ?? "is malformed");
  throw new JsonRpcError(ErrorCode.InvalidParams, `invalid ${method} params: ${field} ${detail}`.slice(0, 300));
}

/** What the SDK answers for a method nobody serves, as the fallback must now say it. */
export function methodNotFound(method: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 64)}`);
}

/** The one answer for a tool this session cannot call, whether or not it exists. */
export function unknownTool(name: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 64)} (tools/list names the tools this session may call)`);
}
