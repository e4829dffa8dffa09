/**
 * @module src/loop/tool-results
 * How a ToolResult becomes the tool_result block the model reads. The model
 * gets `output` and images on success, `kind: message` on failure; never
 * `details`, `structured` (already in `output` when the tool gave no text),
 * `logs` or `stack`, which are for programs, screens and operators.
 */
import type { ToolResult } from "../result.js";
import { loopArguments } from "./arguments.js";
import { IMAGE_MEDIA_TYPES, type ImageBlockParam, type ImageMediaType, type TextBlockParam, type ToolResultBlockParam } from "./messages.js";

/** Issues listed after an invalid_input message, at most; the rest are counted. */
const MAX_LISTED_ISSUES = 10;

const ACCEPTED_MEDIA_TYPES: ReadonlySet<string> = new Set(IMAGE_MEDIA_TYPES);

function isAcceptedMediaType(mimeType: string): mimeType is ImageMediaType {
  return ACCEPTED_MEDIA_TYPES.has(mimeType);
}

export function toToolResultBlock(toolUseId: string, given: ToolResult): ToolResultBlockParam {
  const result = loopArguments.toolResultBlock(toolUseId, given);
  if (!result.ok) {
    return { type: "tool_result", tool_use_id: toolUseId, content: describeFailure(result), is_error: true };
  }
  const block: ToolResultBlockParam = { type: "tool_result", tool_use_id: toolUseId, is_error: false };
  const images = result.images ?? [];
  if (images.length === 0) {
    if (result.output !== "") block.content = result.output;
    return block;
  }
  // The API refuses an empty text block, so text comes only when there is some.
  const content: Array<TextBlockParam | ImageBlockParam> = result.output === "" ? [] : [{ type: "text", text: result.output }];
  for (const image of images) {
    // An image the API cannot take would fail the whole request, and with it
    // the conversation: the model is told instead.
    if (isAcceptedMediaType(image.mimeType)) {
      content.push({ type: "image", source: { type: "base64", media_type: image.mimeType, data: image.data } });
    } else {
      content.push({ type: "text", text: `[an image of type ${JSON.stringify(image.mimeType.slice(0, 64))} was left out: the model accepts ${IMAGE_MEDIA_TYPES.join(", ")}]` });
    }
  }
  block.content = content;
  return block;
}

export type FailureResult = Extract<ToolResult, { ok: false }>;

/** The text a model reads for a failed call: `kind: message`, then the input issues the message does not already say. */
export function describeFailure(result: FailureResult): string {
  const { kind, message } = result.error;
  const head = `${kind}: ${message}`;
  const issues = result.error.issues ?? [];
  if (kind !== "invalid_input" || issues.length === 0) return head;
  // The sandbox already summarises issues in the message (possibly cut
  // short); list only what it does not say, so nothing is said twice.
  const lines = issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .filter((line) => !message.includes(line));
  if (lines.length === 0) return head;
  const listed = lines.slice(0, MAX_LISTED_ISSUES).map((line) => `\n- ${line}`).join("");
  const more = lines.length > MAX_LISTED_ISSUES ? `\n- … and ${lines.length - MAX_LISTED_ISSUES} more` : "";
  return `${head}${listed}${more}`;
}
