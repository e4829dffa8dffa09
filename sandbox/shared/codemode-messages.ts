/**
 * @module sandbox/shared/codemode-messages
 * What a Code Mode script asks the host, types and zod schemas only (the host
 * may import this). The requests travel the capability relay
 * (capability-messages.ts) as its JSON text; the host answers them only for a
 * call it started as a script, so an ordinary tool that sends one is refused.
 *
 * ```
 * script: await tools.x(input) ─▶ {kind: "tool", name, inputJson} ─▶ host: a full corral call of x
 *         await search(query)  ─▶ {kind: "search", query}          ─▶ host: tools it may call or find
 *         await describe(name) ─▶ {kind: "describe", name}         ─▶ host: one tool's declaration
 * ```
 * The answer is a capability answer whose `value` is a ToolAnswer (for a
 * tool call) or the found tools: an error outcome of the tool is a value,
 * `{ ok: false, kind, message }`, which the guest turns into a rejection.
 */
import { z } from "zod";

export const CodeModeToolRequest = z.strictObject({
  kind: z.literal("tool"),
  name: z.string().max(200),
  inputJson: z.string(),
});

export const CodeModeSearchRequest = z.strictObject({
  kind: z.literal("search"),
  query: z.string().max(1000),
});

export const CodeModeDescribeRequest = z.strictObject({
  kind: z.literal("describe"),
  name: z.string().max(200),
});

export const CodeModeRequest = z.discriminatedUnion("kind", [CodeModeToolRequest, CodeModeSearchRequest, CodeModeDescribeRequest]);
export type CodeModeRequest = z.infer<typeof CodeModeRequest>;

/** A nested tool call's answer: the tool's structured result (or text), or its error outcome. */
export type ToolAnswer = { ok: true; result: unknown } | { ok: false; kind: string; message: string };

/** One tool as `search` answers it. */
export type FoundTool = { name: string; description: string };

/** One tool as `describe` answers it. */
export type DescribedTool = FoundTool & { declaration: string; inputSchema: unknown; outputSchema?: unknown };

/** The script call's input: the tools declared to it and its limits (the host enforces them too). */
export type ScriptInput = { tools: string[]; maxCalls: number; maxInFlight: number };
