/**
 * @module sandbox/guest/talk-back-api
 * `ctx.progress`, `ctx.log`, `ctx.elicit` and `ctx.sample` for tools, over
 * the capability relay (sandbox/shared/talk-back.ts has the words). Progress
 * and log messages are notices: they never fail a tool (their promise
 * resolves whatever became of them), and one the caller did not ask for is
 * dropped by the host. A question and a sample are requests: the host
 * checks the effect (ask_user, sample_model), the grant and the budget, and
 * a refusal rejects with a CapabilityError naming what to change.
 */
import { z } from "zod";
import type { CapabilityClient } from "./capability-client.js";
import { encodeUtf8 } from "./web/text-codec.js";
import { LOG_LEVELS, MAX_LOG_BYTES, MAX_MESSAGE_CHARS, type ElicitAnswer, type SampleAnswer, type SampleMessage } from "../shared/talk-back.js";

const LEVELS: ReadonlySet<string> = new Set(LOG_LEVELS);

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** Data as JSON text within the cap: itself, else its text cut (a cycle or a BigInt is shown as text). */
function logData(data: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {
    json = undefined;
  }
  if (json === undefined) json = JSON.stringify(String(data));
  // A UTF-16 unit is at most 3 bytes of UTF-8: most messages are measured by their length alone.
  if (json.length * 3 <= MAX_LOG_BYTES || encodeUtf8(json).byteLength <= MAX_LOG_BYTES) return json;
  const text = typeof data === "string" ? data : json;
  // An eighth of the cap in characters stays within it as JSON, escapes and all.
  return JSON.stringify(`${text.slice(0, MAX_LOG_BYTES / 8)}… [corral: cut from ${text.length} characters]`);
}

/** A form's JSON Schema: as written, or a zod object's (MCP forms are flat objects of primitives). */
function formSchema(schema: unknown): unknown {
  if (!isZodSchema(schema)) return schema;
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  delete json.additionalProperties;
  return json;
}

function textMessages(messages: unknown): unknown {
  if (typeof messages === "string") return [{ role: "user", content: { type: "text", text: messages } }];
  if (!Array.isArray(messages)) return messages;
  return messages.map((message: { role?: unknown; content?: unknown }) =>
    typeof message?.content === "string" ? { role: message.role, content: { type: "text", text: message.content } } : message,
  );
}

export type SampleOptions = {
  /** The conversation: a prompt, or messages (content a string, or MCP's text, image or audio content). */
  messages: string | Array<{ role: "user" | "assistant"; content: string | SampleMessage["content"] }>;
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: { hints?: Array<{ name: string }>; costPriority?: number; speedPriority?: number; intelligencePriority?: number };
};

export function createTalkBackApi(client: CapabilityClient) {
  const notice = (request: Parameters<CapabilityClient["request"]>[0]): Promise<void> =>
    client.request(request).then(
      () => undefined,
      () => undefined,
    );
  return {
    progress(progress: number, total?: number, message?: string): Promise<void> {
      if (typeof progress !== "number" || !Number.isFinite(progress)) throw new TypeError("ctx.progress(done, total?, message?) takes a finite number of work done");
      if (total !== undefined && (typeof total !== "number" || !Number.isFinite(total))) throw new TypeError("ctx.progress: total is a finite number when given");
      const request: Record<string, unknown> = { kind: "progress", progress };
      if (total !== undefined) request.total = total;
      if (message !== undefined) request.message = String(message).slice(0, MAX_MESSAGE_CHARS);
      return notice(request as Parameters<CapabilityClient["request"]>[0]);
    },
    log(level: string, data: unknown, logger?: string): Promise<void> {
      if (!LEVELS.has(level)) throw new TypeError(`ctx.log(level, data): the level is one of ${LOG_LEVELS.join(", ")}`);
      const request: Record<string, unknown> = { kind: "log", level, dataJson: logData(data) };
      if (logger !== undefined) request.logger = String(logger).slice(0, 100);
      return notice(request as Parameters<CapabilityClient["request"]>[0]);
    },
    async elicit(message: string, schema: unknown): Promise<ElicitAnswer> {
      const answer = (await client.request({ kind: "elicit", message: String(message), requestedSchema: formSchema(schema) } as Parameters<CapabilityClient["request"]>[0])) as ElicitAnswer;
      // A zod form's answer is its parsed data (defaults applied); a person's answer that does not fit is the tool's to see.
      if (answer.action !== "accept" || !isZodSchema(schema)) return answer;
      const parsed = schema.safeParse(answer.content ?? {});
      if (!parsed.success) throw new TypeError(`ctx.elicit: the answer does not fit the form: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ").slice(0, 500)}`);
      return { action: "accept", content: parsed.data as ElicitAnswer["content"] };
    },
    async sample(options: SampleOptions): Promise<SampleAnswer> {
      if (typeof options !== "object" || options === null) throw new TypeError("ctx.sample({ messages, maxTokens, ... }) takes an object");
      const request = { ...options, kind: "sample", messages: textMessages(options.messages) };
      return (await client.request(request as Parameters<CapabilityClient["request"]>[0])) as SampleAnswer;
    },
  };
}
