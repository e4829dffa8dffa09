/**
 * @module corral/ai
 * aiTools(host, { ai }): corral's tools as a Vercel AI SDK tool set, for
 * `generateText`, `streamText` and agents. This module never imports `ai`:
 * the caller passes the SDK's own `dynamicTool` and `jsonSchema` (for
 * example `import * as ai from "ai"`), so the SDK stays their dependency and
 * any version with those two functions fits.
 *
 * ```
 * host.declarations({ caller }) ─▶ dynamicTool({ description, inputSchema: jsonSchema(schema, { validate }), execute, toModelOutput })
 * execute(input, { abortSignal }) ─▶ host.call(name, input, { caller, signal }) ─▶ ok: CorralToolOutput
 *                                                                              └▶ failure: throws (the SDK's tool-error)
 * toModelOutput ─▶ json (data-only tools) | text | content (text + images as file parts)
 * ```
 *
 * The set is read once: a tool found later by tool_search or quarantined
 * later is seen by building the set again (each step, with `prepareStep`,
 * if you like); a call to a tool the caller may no longer reach is refused
 * by the host anyway.
 */
import { z } from "zod";
import { CorralError, describeIssues } from "../../errors.js";
import { describeFailure } from "../../loop/tool-results.js";
import { Caller, createCaller } from "../../registry/index.js";
import type { ToolResult } from "../../result.js";
import { createJsonValidator } from "../json-validator.js";
import { declaredTools, OPENAI_TOOL_NAME, type AdapterHost } from "../tool-set.js";

/** What a corral tool's `execute` answers to the AI SDK: the model-facing parts of its ToolResult. */
export type CorralToolOutput = {
  /** The text the model reads. */
  text: string;
  /** The tool's structured data, when it gave some. */
  structured?: unknown;
  images?: Array<{ mimeType: string; data: string }>;
};

type ValidationResult = { success: true; value: unknown } | { success: false; error: Error };
type ToolModelOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: unknown }
  | { type: "content"; value: Array<{ type: "text"; text: string } | { type: "file"; data: { type: "data"; data: string }; mediaType: string }> };

/**
 * The two AI SDK functions the adapter uses, typed by the little it needs;
 * `T` is whatever the SDK's dynamicTool answers, so the set is a ToolSet.
 */
export type AiSdkLike<T = unknown> = {
  jsonSchema(schema: never, options: { validate: (value: unknown) => ValidationResult }): unknown;
  dynamicTool(tool: never): T;
};

export class CorralToolError extends Error {
  override name = "CorralToolError";
  readonly result: Extract<ToolResult, { ok: false }>;
  constructor(result: Extract<ToolResult, { ok: false }>) {
    super(describeFailure(result));
    this.result = result;
  }
}

const AiToolsOptions = z.strictObject({
  ai: z.custom<AiSdkLike>((value) => typeof (value as AiSdkLike | null)?.dynamicTool === "function" && typeof (value as AiSdkLike).jsonSchema === "function", {
    message: 'expected the AI SDK\'s functions: { ai: { dynamicTool, jsonSchema } } from "ai"',
  }),
  /** Who the calls are made for; the same one across a conversation keeps its tool_search finds. @default a new model caller */
  caller: z.instanceof(Caller).optional(),
  /** Lowers each call's time limit. @default the tool's own */
  timeoutMs: z.number().int().positive().optional(),
  /** Keeps only the tools it answers true for. @default all the caller may see */
  filter: z.custom<(name: string) => boolean>((value) => typeof value === "function").optional(),
});
export type AiToolsOptions<T = unknown> = Omit<z.input<typeof AiToolsOptions>, "ai"> & { ai: AiSdkLike<T> };

export function aiTools<T>(host: AdapterHost, options: AiToolsOptions<T>): Record<string, T> {
  const parsed = AiToolsOptions.safeParse(options);
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `aiTools options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  const { timeoutMs, filter } = parsed.data;
  const ai = options.ai;
  const caller = parsed.data.caller ?? createCaller({ origin: "model" });
  const validatorFor = createJsonValidator();
  const set: Record<string, T> = {};
  // Most providers the AI SDK serves (OpenAI first) take only these names.
  for (const declaration of declaredTools(host, caller, OPENAI_TOOL_NAME, "the AI SDK's providers", filter)) {
    const check = validatorFor(declaration.input_schema);
    const inputSchema = ai.jsonSchema(declaration.input_schema as never, {
      validate: (value) => {
        const verdict = check(value);
        return verdict.ok ? { success: true, value } : { success: false, error: new Error(`invalid_input: ${verdict.message}`) };
      },
    });
    set[declaration.name] = ai.dynamicTool({
      description: declaration.description,
      inputSchema,
      async execute(input: unknown, execution: { abortSignal?: AbortSignal }): Promise<CorralToolOutput> {
        const result = await host.call(declaration.name, input, {
          caller,
          ...(execution?.abortSignal !== undefined ? { signal: execution.abortSignal } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        });
        if (!result.ok) throw new CorralToolError(result);
        return {
          text: result.output,
          ...(result.structured !== undefined ? { structured: result.structured } : {}),
          ...(result.images !== undefined && result.images.length > 0 ? { images: result.images } : {}),
        };
      },
      toModelOutput: ({ output }: { output: CorralToolOutput }) => toModelOutput(output),
    } as never);
  }
  return set;
}

export function toModelOutput(output: CorralToolOutput): ToolModelOutput {
  const images = output.images ?? [];
  if (images.length > 0) {
    return {
      type: "content",
      value: [
        ...(output.text !== "" ? [{ type: "text" as const, text: output.text }] : []),
        ...images.map((image) => ({ type: "file" as const, data: { type: "data" as const, data: image.data }, mediaType: image.mimeType })),
      ],
    };
  }
  // A tool that answered data only has that data, as JSON, for its text: give it as JSON.
  // A tool that wrote text for the model meant the model to read that text.
  const dataOnly = output.structured !== undefined && output.text === JSON.stringify(output.structured);
  return dataOnly ? { type: "json", value: output.structured } : { type: "text", value: output.text };
}
