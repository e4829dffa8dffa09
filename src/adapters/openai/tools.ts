/**
 * @module src/adapters/openai/tools
 * openaiTools(host, { strict }): corral's tools as OpenAI function tools, for
 * the Responses API, Chat Completions and the Agents SDK, with the calls run
 * back through the host as one caller. Nothing here imports `openai` or
 * `@openai/agents`: the shapes are plain data, typed by what they hold.
 *
 * ```
 * host.declarations({ caller }) ─▶ names checked ([A-Za-z0-9_-], 64) ─▶ strict? toStrictSchema
 *   responses: { type: "function", name, description, parameters, strict }
 *   chat:      { type: "function", function: { name, description, parameters, strict } }
 *   agents:    { name, description, parameters, strict, execute }   (for @openai/agents' tool())
 * run(function_call) ─▶ JSON.parse(arguments) ─▶ restore nulls ─▶ host.call ─▶ function_call_output
 * ```
 */
import { z } from "zod";
import { CorralError, describeIssues } from "../../errors.js";
import { describeFailure } from "../../loop/tool-results.js";
import { Caller, createCaller } from "../../registry/index.js";
import type { ToolResult } from "../../result.js";
import { declaredTools, OPENAI_TOOL_NAME, type AdapterHost } from "../tool-set.js";
import { toStrictSchema } from "./strict-schema.js";

export type ResponsesFunctionTool = { type: "function"; name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
export type ChatFunctionTool = { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean } };
/** What `tool()` of `@openai/agents` takes. */
export type AgentFunctionTool = {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
  execute(input: unknown, context?: unknown, details?: { signal?: AbortSignal }): Promise<string>;
};

/** A Responses `function_call` output item, as the model sent it. */
export type FunctionCall = { type?: "function_call"; call_id: string; name: string; arguments: string };
export type FunctionCallOutput = { type: "function_call_output"; call_id: string; output: string | OutputPart[] };
export type OutputPart = { type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail: "auto" };

export type OpenAIToolSet = {
  readonly caller: Caller;
  readonly responses: ResponsesFunctionTool[];
  readonly chat: ChatFunctionTool[];
  readonly agents: AgentFunctionTool[];
  /** Runs a Responses `function_call`; answers its `function_call_output` and the host's whole result. */
  run(call: FunctionCall, options?: { signal?: AbortSignal }): Promise<{ item: FunctionCallOutput; result: ToolResult }>;
  /** Runs a Chat Completions tool call; answers the `tool` message and the host's whole result. */
  runChat(call: { id: string; function: { name: string; arguments: string } }, options?: { signal?: AbortSignal }): Promise<{ message: { role: "tool"; tool_call_id: string; content: string }; result: ToolResult }>;
  /** The input a tool gets for a model's arguments: JSON parsed, strict mode's nulls for optional fields taken out. */
  inputOf(name: string, argumentsJson: string): unknown;
};

const OpenAIToolsOptions = z.strictObject({
  /** Strict function calling; a tool whose schema cannot be made strict stays non-strict and its description says why. @default true */
  strict: z.boolean().optional(),
  /** Who the calls are made for; keep one per conversation. @default a new model caller */
  caller: z.instanceof(Caller).optional(),
  /** Lowers each call's time limit. @default the tool's own */
  timeoutMs: z.number().int().positive().optional(),
  /** Keeps only the tools it answers true for. @default all the caller may see */
  filter: z.custom<(name: string) => boolean>((value) => typeof value === "function").optional(),
});
export type OpenAIToolsOptions = z.input<typeof OpenAIToolsOptions>;

type Prepared = { name: string; description: string; parameters: Record<string, unknown>; strict: boolean; restore(input: unknown): unknown };

export function openaiTools(host: AdapterHost, options: OpenAIToolsOptions = {}): OpenAIToolSet {
  const parsed = OpenAIToolsOptions.safeParse(options);
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `openaiTools options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  const o = parsed.data;
  const caller = o.caller ?? createCaller({ origin: "model" });
  const prepared = new Map<string, Prepared>();
  for (const declaration of declaredTools(host, caller, OPENAI_TOOL_NAME, "OpenAI", o.filter)) {
    prepared.set(declaration.name, prepare(declaration.name, declaration.description, declaration.input_schema, o.strict ?? true));
  }

  const inputOf = (name: string, argumentsJson: string): unknown => {
    let input: unknown;
    try {
      input = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
    } catch {
      // The tool's own schema refuses a string, and says so to the model as invalid_input.
      return argumentsJson;
    }
    const tool = prepared.get(name);
    return tool === undefined ? input : tool.restore(input);
  };
  const call = (name: string, argumentsJson: string, signal: AbortSignal | undefined): Promise<ToolResult> =>
    host.call(name, inputOf(name, argumentsJson), { caller, ...(signal !== undefined ? { signal } : {}), ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) });

  const tools = [...prepared.values()];
  return {
    caller,
    responses: tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: t.strict })),
    chat: tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters, strict: t.strict } })),
    agents: tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: t.strict,
      async execute(input, _context, details) {
        const result = await call(t.name, typeof input === "string" ? input : JSON.stringify(input ?? {}), details?.signal);
        return result.ok ? result.output : describeFailure(result);
      },
    })),
    async run(functionCall, runOptions = {}) {
      const result = await call(functionCall.name, functionCall.arguments, runOptions.signal);
      return { item: toFunctionCallOutput(functionCall.call_id, result), result };
    },
    async runChat(toolCall, runOptions = {}) {
      const result = await call(toolCall.function.name, toolCall.function.arguments, runOptions.signal);
      return { message: { role: "tool", tool_call_id: toolCall.id, content: result.ok ? result.output : describeFailure(result) }, result };
    },
    inputOf,
  };
}

function prepare(name: string, description: string, schema: Record<string, unknown>, strict: boolean): Prepared {
  const asIs: Prepared = { name, description, parameters: schema, strict: false, restore: (input) => input };
  if (!strict) return asIs;
  const converted = toStrictSchema(schema);
  if (!converted.ok) return { ...asIs, description: `${description}\n(Not strict: ${converted.reason}.)` };
  return { name, description, parameters: converted.schema, strict: true, restore: converted.restore };
}

/** A result as the Responses API's function_call_output: text, or text and images; `kind: message` for a failure. */
export function toFunctionCallOutput(callId: string, result: ToolResult): FunctionCallOutput {
  if (!result.ok) return { type: "function_call_output", call_id: callId, output: describeFailure(result) };
  const images = result.images ?? [];
  if (images.length === 0) return { type: "function_call_output", call_id: callId, output: result.output };
  const parts: OutputPart[] = result.output === "" ? [] : [{ type: "input_text", text: result.output }];
  for (const image of images) parts.push({ type: "input_image", image_url: `data:${image.mimeType};base64,${image.data}`, detail: "auto" });
  return { type: "function_call_output", call_id: callId, output: parts };
}
