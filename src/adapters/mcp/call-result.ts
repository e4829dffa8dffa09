/**
 * @module src/adapters/mcp/call-result
 * A ToolResult as MCP's CallToolResult: the model-facing text, images, audio,
 * embedded resources and resource links in `content` (in that order), the tool's structured data in `structuredContent` (MCP carries
 * only objects there), and `isError: true` with `kind: message` for every
 * failure. `details`, `logs` and `stack` are for the embedding program and
 * operators: they never reach the client.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeFailure } from "../../loop/index.js";
import type { ToolResult } from "../../result.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function toCallToolResult(result: ToolResult): CallToolResult {
  if (!result.ok) return { content: [{ type: "text", text: describeFailure(result) }], isError: true };
  const content: CallToolResult["content"] = [];
  const images = result.images ?? [];
  const audio = result.audio ?? [];
  const resources = result.resources ?? [];
  const links = result.links ?? [];
  if (result.output !== "" || images.length + audio.length + resources.length + links.length === 0) content.push({ type: "text", text: result.output });
  for (const image of images) content.push({ type: "image", data: image.data, mimeType: image.mimeType });
  for (const clip of audio) content.push({ type: "audio", data: clip.data, mimeType: clip.mimeType });
  for (const resource of resources) content.push({ type: "resource", resource });
  for (const link of links) content.push({ type: "resource_link", ...link });
  const answer: CallToolResult = { content };
  if (isPlainObject(result.structured)) answer.structuredContent = result.structured;
  return answer;
}
